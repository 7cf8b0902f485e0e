package skin

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// reload is one call of a watcher's onChange.
type reload struct {
	skin *Skin
	err  error
}

// next waits for the watcher's next report.
func next(t *testing.T, reloads <-chan reload) reload {
	t.Helper()
	select {
	case r := <-reloads:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher reported nothing within 5s")
		return reload{}
	}
}

// nextValid waits for the watcher's next valid skin, skipping reports of a file caught half
// written: an in-place save truncates the file, then writes it.
func nextValid(t *testing.T, reloads <-chan reload) *Skin {
	t.Helper()
	for {
		if r := next(t, reloads); r.err == nil && !reflect.DeepEqual(r.skin, Default()) {
			return r.skin
		}
	}
}

func TestWatchReportsChangesAndInvalidChanges(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	replace := func(text string) { // as editors save: a new file renamed over the old
		t.Helper()
		tmp := filepath.Join(dir, ".mine.yaml.swp")
		if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write("k9s:\n  body:\n    fgColor: white\n")

	w, err := startWatch(path, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	reloads := make(chan reload, 16)
	done := make(chan error, 1)
	go func() {
		done <- w.run(ctx, func(s *Skin, err error) { reloads <- reload{s, err} })
	}()

	write("k9s:\n  body:\n    fgColor: red\n")
	if s := nextValid(t, reloads); s.Body.Fg != hex(0xff0000) {
		t.Fatalf("after a valid change: body fg %v, want red", s.Body.Fg)
	}

	replace("k9s:\n  frame:\n    border:\n      fgColor: bluish\n")
	want := path + `: k9s.frame.border.fgColor: "bluish" is not a color (a name like dodgerblue, #rrggbb, or default)`
	if r := next(t, reloads); r.skin != nil || r.err == nil || r.err.Error() != want {
		t.Fatalf("after an invalid change: %+v, want error %s", r, want)
	}

	replace("k9s:\n  body:\n    fgColor: blue\n")
	if r := next(t, reloads); r.err != nil || r.skin.Body.Fg != hex(0x0000ff) {
		t.Fatalf("after a replacing save: %+v, want body fg blue", r)
	}

	// Saving the same bytes again is not a change: nothing is reported, and the next report is
	// the change after. The pause lets the watcher see the two saves apart.
	replace("k9s:\n  body:\n    fgColor: blue\n")
	time.Sleep(5 * w.debounce)
	replace("nodepilot:\n  spotColor: gold\n")
	if r := next(t, reloads); r.err != nil || r.skin.Nodepilot.Spot != tcell.ColorGold {
		t.Fatalf("after an unchanged save then a change: %+v, want spot gold", r)
	}

	// Another file in the directory is none of its business.
	if err := os.WriteFile(filepath.Join(dir, "other.yaml"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if r := next(t, reloads); r.skin != nil || r.err == nil || !strings.HasPrefix(r.err.Error(), "skin file "+path+": no such file or directory (a skin is") {
		t.Fatalf("after removing the file: %+v, want an error naming it once and what a skin may be", r)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run returned %v after cancel, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

func TestWatchShippedSkinWaitsForCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, "light", func(*Skin, error) { t.Error("a shipped skin never changes") })
	}()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Watch = %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return after cancel")
	}
}

func TestWatchMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "mine.yaml")
	err := Watch(context.Background(), path, func(*Skin, error) {})
	if err == nil || !strings.Contains(err.Error(), "watching skin "+path) {
		t.Errorf("Watch(%s) = %v, want an error naming it", path, err)
	}
}
