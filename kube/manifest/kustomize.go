package manifest

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// IsKustomization reports whether dir is a folder holding a kustomization file.
func IsKustomization(dir string) bool {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// LoadKustomization builds the kustomization in dir as `kubectl kustomize` does (files below its
// root only, no plugins) and decodes what it makes as Load does, its messages naming
// "DIR (kustomize build)" and the document of the built stream.
func LoadKustomization(dir string) (*Set, error) {
	if !IsKustomization(dir) {
		return nil, fmt.Errorf("-k %s: no kustomization.yaml, kustomization.yml or Kustomization in it; use -f for plain manifests", dir)
	}
	built, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	data, err := built.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	return Decode(dir+" (kustomize build)", data)
}
