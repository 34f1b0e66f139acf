package remote

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// A line of the event stream longer than any event (a peer gone wrong, a
// stream of zeros) is dropped without being held whole; the stream goes on
// with the next line.
func TestEventLineDropsWhatIsNoEvent(t *testing.T) {
	t.Parallel()
	in := `{"a":1}` + "\n" + strings.Repeat("0", 3*maxEventLine) + "\n" + `{"b":2}` + "\n" + "tail"
	r := bufio.NewReaderSize(strings.NewReader(in), 64<<10)
	want := []struct {
		line string
		err  error
	}{{`{"a":1}` + "\n", nil}, {"", errLongEvent}, {`{"b":2}` + "\n", nil}, {"", io.EOF}}
	for i, w := range want {
		line, err := eventLine(r)
		if string(line) != w.line || !errors.Is(err, w.err) && err != w.err {
			t.Fatalf("line %d: %q %v, want %q %v", i, line, err, w.line, w.err)
		}
	}
}
