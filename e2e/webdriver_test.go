package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A small W3C WebDriver client: just what the dashboard test needs of
// chromedriver (a session, navigation, script, typing, clicking), over
// its HTTP API, so that no browser-automation module is needed.

// browserPaths finds Debian's chromium and chromium-driver. Without them
// the browser tests skip, or fail under CI=true (.ci/run installs them).
func browserPaths(t *testing.T) (chromium, driver string) {
	t.Helper()
	var missing []string
	for _, name := range []string{"chromium", "chromedriver"} {
		p, err := exec.LookPath(name)
		if err != nil {
			missing = append(missing, name)
			continue
		}
		if name == "chromium" {
			chromium = p
		} else {
			driver = p
		}
	}
	if len(missing) > 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing: .ci/run installs them (apt-get install chromium chromium-driver)", strings.Join(missing, " and "))
		}
		t.Skipf("%s not installed (apt-get install chromium chromium-driver)", strings.Join(missing, " and "))
	}
	return chromium, driver
}

// browser is one headless Chromium session driven through chromedriver.
type browser struct {
	t       *testing.T
	base    string // chromedriver's URL
	session string
}

var driverPort = regexp.MustCompile(`started successfully on port (\d+)`)

// openBrowser starts chromedriver on a free port and a headless Chromium
// session; the test's cleanup ends both.
func openBrowser(t *testing.T) *browser {
	t.Helper()
	chromium, driver := browserPaths(t)
	cmd := exec.Command(driver, "--port=0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	port := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := driverPort.FindStringSubmatch(sc.Text()); m != nil {
				port <- m[1]
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	b := &browser{t: t}
	select {
	case p := <-port:
		b.base = "http://127.0.0.1:" + p
	case <-exited:
		t.Fatal("chromedriver exited before it listened")
	case <-time.After(30 * time.Second):
		t.Fatal("chromedriver did not listen within 30s")
	}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	b.call("POST", "/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{
			"binary": chromium,
			// --no-sandbox: CI runs as root, where Chromium's sandbox
			// refuses to start.
			"args": []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--no-first-run", "--user-data-dir=" + t.TempDir()},
		},
	}}}, &created)
	b.session = created.SessionID
	t.Cleanup(func() { b.call("DELETE", "/session/"+b.session, nil, nil) })
	return b
}

// in is the same session reporting to t (a subtest).
func (b *browser) in(t *testing.T) *browser { return &browser{t: t, base: b.base, session: b.session} }

// call sends one WebDriver command and decodes its "value" into out.
func (b *browser) call(method, path string, body any, out any) {
	b.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			b.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, b.base+path, rd)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatalf("webdriver %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("webdriver %s %s: %s: %s", method, path, resp.Status, data)
	}
	if out == nil {
		return
	}
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		b.t.Fatalf("webdriver %s %s: %v in %s", method, path, err, data)
	}
	if err := json.Unmarshal(env.Value, out); err != nil {
		b.t.Fatalf("webdriver %s %s: %v in %s", method, path, err, env.Value)
	}
}

// open navigates to url and waits for the page to load.
func (b *browser) open(url string) {
	b.call("POST", "/session/"+b.session+"/url", map[string]string{"url": url}, nil)
}

// eval runs a script in the page and returns its result.
func (b *browser) eval(script string, args ...any) any {
	b.t.Helper()
	if args == nil {
		args = []any{}
	}
	var v any
	b.call("POST", "/session/"+b.session+"/execute/sync", map[string]any{"script": script, "args": args}, &v)
	return v
}

// text returns the text of the first element matching a CSS selector
// ("" when none does).
func (b *browser) text(selector string) string {
	b.t.Helper()
	v, _ := b.eval(`var e = document.querySelector(arguments[0]); return e ? e.textContent : "";`, selector).(string)
	return v
}

// waitText polls until the element's text satisfies ok, and returns it.
func (b *browser) waitText(selector string, within time.Duration, ok func(string) bool) string {
	b.t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := b.text(selector)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s after %v: %q", selector, within, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// elementKey is the W3C name of an element reference.
const elementKey = "element-6066-11e4-a52e-4f735466cecf"

// find returns the reference of the element matching a CSS selector.
func (b *browser) find(selector string) string {
	b.t.Helper()
	var el map[string]string
	b.call("POST", "/session/"+b.session+"/element", map[string]string{"using": "css selector", "value": selector}, &el)
	if el[elementKey] == "" {
		b.t.Fatalf("no element %s", selector)
	}
	return el[elementKey]
}

// typeInto types text into the element as a person's keys.
func (b *browser) typeInto(selector, text string) {
	b.call("POST", "/session/"+b.session+"/element/"+b.find(selector)+"/value", map[string]string{"text": text}, nil)
}

// click clicks the element.
func (b *browser) click(selector string) {
	b.call("POST", "/session/"+b.session+"/element/"+b.find(selector)+"/click", map[string]any{}, nil)
}
