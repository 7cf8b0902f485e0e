package skin

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/nodepilot/nodepilot/userfile"
)

// debounce is how long a skin file must stay unchanged after an event before Watch reloads it:
// editors save in several steps (write a temporary file, rename it over the old one).
const debounce = 100 * time.Millisecond

// Watch reloads the skin file ref names (a reference from Resolve) each time it changes, until
// ctx is done, and calls onChange with the new skin, or with the error if the file is now invalid
// or gone; keeping the previous skin then is the caller's choice. onChange runs on Watch's
// goroutine, one call at a time, so a console hands the skin to its UI goroutine. A change that
// leaves the bytes as they were is not reported. Watch watches the file's directory, since editors
// replace files rather than write them in place. Shipped skins never change: for those Watch just
// waits for ctx. Watch returns nil when ctx is done, or an error if it cannot watch at all.
func Watch(ctx context.Context, ref string, onChange func(*Skin, error)) error {
	if isShippedName(ref) {
		<-ctx.Done()
		return nil
	}
	w, err := startWatch(ref, debounce)
	if err != nil {
		return err
	}
	return w.run(ctx, onChange)
}

// watcher watches one skin file through its directory.
type watcher struct {
	path     string
	events   *fsnotify.Watcher
	debounce time.Duration
}

// startWatch starts watching path's directory: events from here on are seen by run.
func startWatch(path string, debounce time.Duration) (*watcher, error) {
	path = filepath.Clean(path)
	events, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching skin %s: %w", path, err)
	}
	if err := events.Add(filepath.Dir(path)); err != nil {
		events.Close()
		return nil, fmt.Errorf("watching skin %s: %w", path, err)
	}
	return &watcher{path: path, events: events, debounce: debounce}, nil
}

// run reports changes to onChange until ctx is done, then stops watching.
func (w *watcher) run(ctx context.Context, onChange func(*Skin, error)) error {
	defer w.events.Close()
	quiet := time.NewTimer(w.debounce)
	quiet.Stop()
	defer quiet.Stop()
	var last []byte
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.events.Events:
			if !ok {
				return nil
			}
			if filepath.Clean(ev.Name) == w.path && ev.Op != fsnotify.Chmod {
				quiet.Reset(w.debounce)
			}
		case err, ok := <-w.events.Errors:
			if !ok {
				return nil
			}
			onChange(nil, fmt.Errorf("watching skin %s: %w", w.path, err))
		case <-quiet.C:
			data, err := userfile.Read(w.path)
			if err != nil {
				last = nil
				onChange(nil, readError(w.path, err))
				continue
			}
			if last != nil && bytes.Equal(data, last) {
				continue
			}
			last = data
			onChange(Parse(w.path, data))
		}
	}
}
