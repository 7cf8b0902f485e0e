package userfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// logHeadSize is how much of an existing file OpenLog reads to recognise nodepilot's log.
const logHeadSize = 512

// OpenLog opens the file at path to append log lines to, creating it if it does not exist. An
// existing file is appended to only if it is empty or already a log nodepilot wrote (its first
// line is a log/slog text record), or if it is /dev/null; anything else (a user's file, a
// directory, a device, a FIFO, a socket, directly or through a symlink) is refused with an error
// naming the path and the fix, so a mistyped --log-file never grows or corrupts another file.
func OpenLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return f, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var head []byte
	if info.Mode().IsRegular() && info.Size() > 0 {
		if head, err = readHead(path); err != nil {
			return nil, err
		}
	}
	if err := checkLog(path, info.Mode(), info.Size(), isDevNull(info), head); err != nil {
		return nil, err
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: give a log file you can write", path, err)
	}
	return f, nil
}

// checkLog decides whether an existing file may take nodepilot's log lines.
func checkLog(path string, mode fs.FileMode, size int64, devNull bool, head []byte) error {
	switch {
	case devNull:
		return nil
	case !mode.IsRegular():
		return fmt.Errorf("%s is %s, not a log file: give the path of a new or existing nodepilot log (or /dev/null)", path, kind(mode))
	case size == 0 || isSlogText(head):
		return nil
	}
	return fmt.Errorf("%s exists and is not a nodepilot log (its first line is not a log record): give a new path, or remove the file if nothing in it matters", path)
}

// isSlogText tells whether head starts with a record of log/slog's text handler, the format every
// nodepilot log is written in: time=... level=... msg=...
func isSlogText(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	return bytes.HasPrefix(line, []byte("time=")) && bytes.Contains(line, []byte(" level=")) && bytes.Contains(line, []byte(" msg="))
}

// readHead reads the first bytes of the regular file at path without blocking on a swapped-in FIFO.
func readHead(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, logHeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}

// isDevNull tells whether info is the null device's.
func isDevNull(info fs.FileInfo) bool {
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(info, null)
}
