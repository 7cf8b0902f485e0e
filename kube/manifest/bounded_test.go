package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoadRefusesFilesThatAreNotRegular: a folder from an untrusted repository with a symlink to
// /dev/zero and a FIFO named like a manifest fails with both named, instead of running the
// machine out of memory or hanging.
func TestLoadRefusesFilesThatAreNotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "x.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, paths := range [][]string{{dir}, {"/dev/zero"}} {
		_, err := Load(paths...)
		if err == nil {
			t.Fatalf("Load(%v) succeeded", paths)
		}
		if !strings.Contains(err.Error(), "is not a regular file") {
			t.Errorf("Load(%v): %v, want the file named as not regular", paths, err)
		}
	}
	_, err := Load(dir)
	for _, name := range []string{"zero.yaml", "x.yaml"} {
		if !strings.Contains(err.Error(), filepath.Join(dir, name)) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}
