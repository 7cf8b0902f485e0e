package main

import (
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// TestBuiltWithoutGoPlugins: Kustomize's Go plugin loader, which plan never uses, imports package
// plugin, and a binary that links it keeps every exported method (185 MB and 94 MiB resident at
// start, against 69 MB and 45 MiB). The Makefile's GOFLAGS leave it out with Kustomize's tag.
func TestBuiltWithoutGoPlugins(t *testing.T) {
	const tag = "kustomize_disable_go_plugin_support"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	for _, s := range info.Settings {
		if s.Key == "-tags" && slices.Contains(strings.Split(s.Value, ","), tag) {
			return
		}
	}
	t.Fatalf("built without -tags=%s: build and test through make, whose GOFLAGS set it", tag)
}
