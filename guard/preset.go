package guard

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// presets holds the policy files that reproduce the guards of other
// systems, one per file, and guardstream's own defaults.
//
//go:embed presets/*.yaml
var presets embed.FS

// maxPresetDepth bounds a chain of presets that start from presets.
const maxPresetDepth = 4

// Presets returns the names of the presets, sorted.
func Presets() []string {
	entries, _ := fs.ReadDir(presets, "presets")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Preset returns the policy of the named preset.
func Preset(name string) (Policy, error) {
	p, err := preset(name, 0)
	if err != nil {
		return Policy{}, err
	}
	p.Preset = name
	if err := p.Validate(); err != nil {
		return Policy{}, fmt.Errorf("preset %s: %w: %w", name, ErrInvalidPolicy, err)
	}
	return p, nil
}

func preset(name string, depth int) (Policy, error) {
	if !hasPreset(name) {
		return Policy{}, fmt.Errorf("%w %q; the presets are %s", ErrUnknownPreset, name, strings.Join(Presets(), ", "))
	}
	if depth > maxPresetDepth {
		return Policy{}, fmt.Errorf("preset %s: presets start from one another more than %d deep", name, maxPresetDepth)
	}
	b, err := presets.ReadFile(path.Join("presets", name+".yaml"))
	if err != nil {
		return Policy{}, err
	}
	p, err := parse(b, depth)
	if err != nil {
		return Policy{}, fmt.Errorf("preset %s: %w", name, err)
	}
	return p, nil
}

// hasPreset reports whether name is a preset.
func hasPreset(name string) bool { return slices.Contains(Presets(), name) }
