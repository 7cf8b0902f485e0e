package skin

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// syntaxError words a YAML syntax error in the file name: "mytheme.yaml: line 12: did not find
// expected key". The YAML library often reports the line where the enclosing mapping began
// rather than the line at fault, so the line is found again (see faultLine).
func syntaxError(name string, data []byte, err error) error {
	msg := problem(err)
	if line := faultLine(data, msg); line > 0 {
		return fmt.Errorf("%s: line %d: %s", name, line, msg)
	}
	return fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
}

// problem is a YAML error's message without its "yaml: line N: " prefix.
func problem(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	rest, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return msg
	}
	digits, after, ok := strings.Cut(rest, ": ")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return msg
	}
	return after
}

// faultLine finds the line at fault for the YAML error msg: the first line at which a prefix of
// data, cut after whole lines, fails to parse with the same message. It searches by halves, so
// it parses data about log2(lines) times; 0 if no prefix fails that way.
func faultLine(data []byte, msg string) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	ends := make([]int, len(lines))
	end := 0
	for i, l := range lines {
		end += len(l)
		ends[i] = end
	}
	first := sort.Search(len(ends), func(i int) bool {
		var doc yaml.Node
		err := yaml.Unmarshal(data[:ends[i]], &doc)
		return err != nil && problem(err) == msg
	})
	if first == len(ends) {
		return 0
	}
	return first + 1
}
