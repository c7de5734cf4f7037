package worker

import (
	"io"
	"os"
)

// ReadLog returns the bytes an artifact log keeps and its length. A log
// whose head was cut to keep it within its limit (see Spec.LogLimit)
// keeps its length with a hole at its head; the bytes returned start past
// the hole, so len(data) is at most the limit while length counts all the
// worker wrote.
func ReadLog(path string) (data []byte, length int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	start := dataStart(f, st.Size(), 0)
	data, err = io.ReadAll(io.NewSectionReader(f, start, st.Size()-start))
	return data, st.Size(), err
}
