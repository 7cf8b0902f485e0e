package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nodepilot/nodepilot/userfile"
)

// Load reads manifests from files and folders (every *.yaml, *.yml and *.json below a folder,
// in lexical order) and returns what they declare. It reports every problem of every file (up
// to 50 a file), each naming the file, document, object and field; the Set is nil then.
func Load(paths ...string) (*Set, error) {
	var files []string
	for _, path := range paths {
		found, err := manifestFiles(path)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	set := &Set{}
	state := newLoadState()
	var errs []error
	for _, file := range files {
		data, err := userfile.Read(file)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading manifest: %w", err))
			continue
		}
		fileSet, fileErrs := decodeFile(file, data, state)
		set.add(fileSet)
		errs = append(errs, fileErrs...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// Decode decodes the documents of one file's contents, named file in messages, as Load does.
func Decode(file string, data []byte) (*Set, error) {
	set, errs := decodeFile(file, data, newLoadState())
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// PathError is a path given to Load that names no manifest: it does not exist, or it is a folder
// with no manifest file below it. A command says which of its flags gave the path.
type PathError struct {
	// Path is the path as given.
	Path string
	// Problem says what is wrong with it, and the fix.
	Problem string
}

// Error is "PATH: PROBLEM".
func (e *PathError) Error() string { return e.Path + ": " + e.Problem }

// manifestFiles returns path when it is a file, or the manifest files below it when it is a
// folder, sorted; a folder with none is an error.
func manifestFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &PathError{path, "no such file or folder"}
	case err != nil:
		return nil, fmt.Errorf("reading manifests: %w", err)
	case !info.IsDir():
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && isManifestFile(p) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading manifests in %s: %w", path, err)
	}
	if len(files) == 0 {
		// A mistyped folder would otherwise read as one that declares nothing.
		return nil, &PathError{path, "a folder with no manifest in it: give a folder holding *.yaml, *.yml or *.json files, or one such file"}
	}
	sort.Strings(files)
	return files, nil
}

func isManifestFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}
