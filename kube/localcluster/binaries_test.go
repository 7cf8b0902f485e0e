package localcluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinDir(t *testing.T) {
	const tail = "k8s-bins/" + kubernetesVersion + "-kwok-" + kwokVersion
	tests := []struct {
		name                   string
		cache, xdg, home, want string
	}{
		{name: "NODEPILOT_CACHE wins", cache: "/c", xdg: "/x", home: "/h", want: "/c/" + tail},
		{name: "XDG_CACHE_HOME next", xdg: "/x", home: "/h", want: "/x/nodepilot/" + tail},
		{name: "HOME last", home: "/h", want: "/h/.cache/nodepilot/" + tail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NODEPILOT_CACHE", tt.cache)
			t.Setenv("XDG_CACHE_HOME", tt.xdg)
			t.Setenv("HOME", tt.home)
			got, err := BinDir()
			if err != nil {
				t.Fatalf("BinDir: %v", err)
			}
			if got != tt.want {
				t.Errorf("BinDir = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBinDirVersionsMatchBuildScript(t *testing.T) {
	script, err := os.ReadFile("../../hack/build-k8s-bins.sh")
	if err != nil {
		t.Fatalf("read build script: %v", err)
	}
	for _, line := range []string{"K8S_VERSION=" + kubernetesVersion, "KWOK_VERSION=" + kwokVersion} {
		if !strings.Contains(string(script), "\n"+line+"\n") {
			t.Errorf("hack/build-k8s-bins.sh does not set %s; keep the versions in binaries.go in step", line)
		}
	}
}

func TestFindBinariesMissing(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{etcdName, apiserverName, schedulerName} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err := findBinaries(dir)
	if err == nil {
		t.Fatal("findBinaries: no error with three binaries missing")
	}
	for _, want := range []string{controllerName, kwokName, metricsServerName, dir, buildHint} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), apiserverName+",") {
		t.Errorf("error %q lists a binary that is present", err)
	}
}
