package userfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(regular, []byte("kind: Pod\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "x.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zeroLink := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "big.yaml")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	exact := filepath.Join(dir, "exact.yaml")
	if err := os.WriteFile(exact, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(exact, MaxSize); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, path, wantErr string
		wantLen             int
	}{
		{name: "regular", path: regular, wantLen: len("kind: Pod\n")},
		{name: "exactly the cap", path: exact, wantLen: MaxSize},
		{name: "device", path: "/dev/zero", wantErr: "/dev/zero is not a regular file (a character device): give the path of a regular file"},
		{name: "symlink to a device", path: zeroLink, wantErr: zeroLink + " is not a regular file (a character device)"},
		{name: "fifo", path: fifo, wantErr: fifo + " is not a regular file (a FIFO)"},
		{name: "directory", path: dir, wantErr: dir + " is not a regular file (a directory)"},
		{name: "over the cap", path: sparse, wantErr: sparse + " is larger than 32 MiB: split it into smaller files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := Read(tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Read(%s) error = %v, want it to contain %q", tt.path, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(data) != tt.wantLen {
				t.Errorf("Read(%s) read %d bytes, want %d", tt.path, len(data), tt.wantLen)
			}
		})
	}
	if _, err := Read(filepath.Join(dir, "missing.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file: error = %v, want fs.ErrNotExist", err)
	}
}
