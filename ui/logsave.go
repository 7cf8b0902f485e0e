package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultLogDir is where saved logs go: $XDG_STATE_HOME/nodepilot/logs when XDG_STATE_HOME is
// set, else nodepilot-logs in the temporary directory. The flash message names the file.
func DefaultLogDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "nodepilot", "logs")
	}
	return filepath.Join(os.TempDir(), "nodepilot-logs")
}

// logFileName names a saved log: namespace, pod, container and the time, so saves never
// overwrite each other.
func logFileName(namespace, pod, ctr string, at time.Time) string {
	return fmt.Sprintf("%s_%s_%s_%s.log", namespace, pod, ctr, at.UTC().Format("20060102T150405Z"))
}

// saveLines writes lines to dir/name, creating dir, and returns the file's path.
func saveLines(dir, name string, lines []string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("saving logs: creating %s: %w (set XDG_STATE_HOME to a writable directory)", dir, err)
	}
	path := filepath.Join(dir, name)
	text := strings.Join(lines, "\n")
	if len(lines) > 0 {
		text += "\n"
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", fmt.Errorf("saving logs to %s: %w", path, err)
	}
	return path, nil
}
