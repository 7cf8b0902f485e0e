package manifest

import (
	"bytes"
	"strings"
)

// document is one YAML document of a file.
type document struct {
	// number is the 1-based position among the file's non-empty documents.
	number int
	// line is the file line the document starts on.
	line int
	data []byte
}

// splitDocuments splits a multi-document YAML (or JSON) file at "---" lines, as apimachinery's
// YAMLReader does, but keeps empty documents out of the numbering and remembers where each
// document starts so that YAML syntax errors can name file lines. Documents holding only
// comments and blank lines are empty.
func splitDocuments(data []byte) []document {
	var docs []document
	var current bytes.Buffer
	start := 1
	flush := func() {
		if !isEmptyDocument(current.Bytes()) {
			docs = append(docs, document{number: len(docs) + 1, line: start, data: append([]byte(nil), current.Bytes()...)})
		}
		current.Reset()
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, line := range lines {
		if isSeparator(line) {
			flush()
			start = i + 2
			continue
		}
		current.Write(line)
	}
	flush()
	return docs
}

// isSeparator reports whether line is "---", optionally followed by spaces or a comment.
func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	trimmed := strings.TrimSpace(string(rest))
	return trimmed == "" || strings.HasPrefix(trimmed, "#")
}

func isEmptyDocument(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
			return false
		}
	}
	return true
}
