package skin

import (
	"fmt"
	"io/fs"

	"github.com/nodepilot/nodepilot/skins"
)

// Default returns a new copy of the default skin, the shipped skins/default.yaml: every skin is
// laid over it.
func Default() *Skin {
	data, err := fs.ReadFile(skins.FS(), "default.yaml")
	if err != nil {
		panic(fmt.Sprintf("skin: the embedded default skin is missing: %v", err))
	}
	var s Skin
	if err := decodeInto(&s, "default.yaml", data); err != nil {
		panic(fmt.Sprintf("skin: the embedded default skin is invalid: %v", err))
	}
	return &s
}
