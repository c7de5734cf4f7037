package i18n

import (
	"errors"
	"testing"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name    string
		flag    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{name: "nothing set", want: English},
		{name: "flag en", flag: "en", want: English},
		{name: "flag zh-CN", flag: "zh-CN", want: Chinese},
		{name: "flag zh_CN", flag: "zh_CN", want: Chinese},
		{name: "flag zh-Hans", flag: "zh-Hans", want: Chinese},
		{name: "flag unknown", flag: "fr", wantErr: true},
		{name: "flag wins over env", flag: "en", env: map[string]string{"DAOKIT_LANG": "zh-CN", "LANG": "zh_CN.UTF-8"}, want: English},
		{name: "DAOKIT_LANG wins over LANG", env: map[string]string{"DAOKIT_LANG": "zh-CN", "LANG": "en_US.UTF-8"}, want: Chinese},
		{name: "DAOKIT_LANG unknown", env: map[string]string{"DAOKIT_LANG": "klingon"}, wantErr: true},
		{name: "LANG zh_CN.UTF-8", env: map[string]string{"LANG": "zh_CN.UTF-8"}, want: Chinese},
		{name: "LANG zh_CN.GB18030", env: map[string]string{"LANG": "zh_CN.GB18030"}, want: Chinese},
		{name: "LANG zh_SG", env: map[string]string{"LANG": "zh_SG.UTF-8"}, want: Chinese},
		{name: "LANG zh_TW is not confidently Simplified", env: map[string]string{"LANG": "zh_TW.UTF-8"}, want: English},
		{name: "LANG zh_HK", env: map[string]string{"LANG": "zh_HK.UTF-8"}, want: English},
		{name: "LANG C", env: map[string]string{"LANG": "C"}, want: English},
		{name: "LANG POSIX", env: map[string]string{"LANG": "POSIX"}, want: English},
		{name: "LANG C.UTF-8", env: map[string]string{"LANG": "C.UTF-8"}, want: English},
		{name: "LANG empty", env: map[string]string{"LANG": ""}, want: English},
		{name: "LANG unknown falls back", env: map[string]string{"LANG": "fr_FR.UTF-8"}, want: English},
		{name: "LANG with modifier", env: map[string]string{"LANG": "zh_CN.UTF-8@pinyin"}, want: Chinese},
		{name: "LC_ALL beats LANG", env: map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, want: English},
		{name: "LC_MESSAGES beats LANG", env: map[string]string{"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, want: Chinese},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.flag, func(k string) string { return tt.env[k] })
			if tt.wantErr {
				var ule *UnknownLanguageError
				if !errors.As(err, &ule) {
					t.Fatalf("Resolve: got %q, %v; want an UnknownLanguageError", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve: got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
