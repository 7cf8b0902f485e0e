package render

import "strings"

// Span is a run of text in one tone.
type Span struct {
	Text string
	Tone Tone
}

// Line is one line of text.
type Line []Span

// Text is what a text view shows: describe, YAML, explain and help.
type Text []Line

// String is the text without tones.
func (t Text) String() string {
	var b strings.Builder
	for _, l := range t {
		for _, s := range l {
			b.WriteString(s.Text)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Writer builds a Text line by line.
type Writer struct {
	text Text
	line Line
}

// Add appends a span to the current line.
func (w *Writer) Add(text string, tone Tone) *Writer {
	if text != "" {
		w.line = append(w.line, Span{Text: text, Tone: tone})
	}
	return w
}

// End ends the current line.
func (w *Writer) End() *Writer {
	w.text = append(w.text, w.line)
	w.line = nil
	return w
}

// Heading writes a heading line.
func (w *Writer) Heading(s string) *Writer { return w.Add(s, ToneHeading).End() }

// Field writes "  name: value" at an indent.
func (w *Writer) Field(indent int, name, value string) *Writer {
	return w.Add(strings.Repeat(" ", indent), ToneInherit).Add(name, ToneKey).Add(":", ToneColon).Add(" "+value, ToneValue).End()
}

// Para writes a line of plain text at an indent.
func (w *Writer) Para(indent int, s string, tone Tone) *Writer {
	return w.Add(strings.Repeat(" ", indent), ToneInherit).Add(s, tone).End()
}

// Blank writes an empty line.
func (w *Writer) Blank() *Writer { return w.End() }

// Text returns what was written (ending an unfinished line).
func (w *Writer) Text() Text {
	if len(w.line) > 0 {
		w.End()
	}
	return w.text
}
