// Package skins holds the skin files nodepilot ships, embedded in the binary: one NAME.yaml per
// skin, in the k9s skin format plus a nodepilot: section (default.yaml documents both). Package
// ui/skin parses them; this package only carries the bytes.
package skins

import (
	"embed"
	"io/fs"
)

//go:embed *.yaml
var files embed.FS

// FS returns the shipped skin files, NAME.yaml each, at the root of the returned file system.
func FS() fs.FS {
	return files
}
