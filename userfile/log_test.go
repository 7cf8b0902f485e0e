package userfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheckLog(t *testing.T) {
	const record = `time=2026-12-03T16:40:46.000Z level=INFO msg="nodepilot started" mode=live` + "\n"
	for _, tc := range []struct {
		name    string
		mode    fs.FileMode
		size    int64
		devNull bool
		head    string
		want    string // "" allows it; else a part of the error
	}{
		{"empty file", 0o644, 0, false, "", ""},
		{"nodepilot's own log", 0o644, 4096, false, record + record, ""},
		{"a first line without msg=", 0o644, 4096, false, record[:40] + "\n", "is not a nodepilot log"},
		{"a record of a debug line", 0o644, 100, false, `time=x level=DEBUG msg=y` + "\n", ""},
		{"a README", 0o644, 100, false, "# notes\n", "is not a nodepilot log"},
		{"a JSON log", 0o644, 100, false, `{"time":"x","level":"INFO","msg":"y"}` + "\n", "is not a nodepilot log"},
		{"a line that only starts like one", 0o644, 100, false, "time=x but no level\n", "is not a nodepilot log"},
		{"a record on the second line only", 0o644, 100, false, "hello\n" + record, "is not a nodepilot log"},
		{"a directory", fs.ModeDir | 0o755, 4096, false, "", "is a directory"},
		{"a FIFO", fs.ModeNamedPipe | 0o644, 0, false, "", "is a FIFO"},
		{"a socket", fs.ModeSocket | 0o644, 0, false, "", "is a socket"},
		{"a character device", fs.ModeDevice | fs.ModeCharDevice | 0o666, 0, false, "", "is a character device"},
		{"/dev/null", fs.ModeDevice | fs.ModeCharDevice | 0o666, 0, true, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkLog("/tmp/x.log", tc.mode, tc.size, tc.devNull, []byte(tc.head))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("checkLog = %v, want it allowed", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "/tmp/x.log")):
				t.Errorf("checkLog = %v, want an error naming the path and containing %q", err, tc.want)
			}
		})
	}
}

// TestOpenLog: over real files, OpenLog appends to what it may (keeping what was there) and
// leaves what it refuses untouched.
func TestOpenLog(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	own := write("own.log", "time=x level=INFO msg=started\n")
	empty := write("empty.log", "")
	notes := write("notes.txt", "my notes\n")
	fifo := filepath.Join(dir, "pipe.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	toNotes := filepath.Join(dir, "link.log")
	if err := os.Symlink(notes, toNotes); err != nil {
		t.Fatal(err)
	}
	toZero := filepath.Join(dir, "zero.log")
	if err := os.Symlink("/dev/zero", toZero); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       string // "" opens it; else a part of the error
		before     string // what the file held before, for files that must keep it
	}{
		{"new file", filepath.Join(dir, "new.log"), "", ""},
		{"own log", own, "", "time=x level=INFO msg=started\n"},
		{"empty file", empty, "", ""},
		{"/dev/null", os.DevNull, "", ""},
		{"a user's file", notes, "is not a nodepilot log", "my notes\n"},
		{"a symlink to a user's file", toNotes, "is not a nodepilot log", "my notes\n"},
		{"a directory", dir, "is a directory", ""},
		{"a FIFO", fifo, "is a FIFO", ""},
		{"a symlink to a device", toZero, "is a character device", ""},
		{"a missing folder", filepath.Join(dir, "none", "x.log"), "no such file or directory", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := OpenLog(tc.path)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("OpenLog(%s) = %v, want an error containing %q", tc.path, err, tc.want)
				}
				if tc.before != "" {
					if got, _ := os.ReadFile(tc.path); string(got) != tc.before {
						t.Errorf("a refused file changed: %q", got)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("OpenLog(%s) = %v", tc.path, err)
			}
			if _, err := f.WriteString("time=y level=INFO msg=again\n"); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if tc.path == os.DevNull {
				return
			}
			if got, _ := os.ReadFile(tc.path); string(got) != tc.before+"time=y level=INFO msg=again\n" {
				t.Errorf("after a write the file holds %q, want what it held and the new line", got)
			}
		})
	}
}
