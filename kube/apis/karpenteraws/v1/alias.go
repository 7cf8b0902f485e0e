package v1

import (
	"fmt"
	"strings"
)

// AliasVersionLatest is the alias version that follows the newest AMI release.
const AliasVersionLatest = "latest"

// Alias is a parsed amiSelectorTerm alias: an EKS-optimized AMI family and version.
type Alias struct {
	// Family is the AMI family, such as AL2023.
	Family string
	// Version is an AMI release such as v20240625, or "latest".
	Version string
}

// String returns the alias as written in an EC2NodeClass, such as "al2023@latest".
func (a Alias) String() string {
	return strings.ToLower(a.Family) + "@" + a.Version
}

// aliasFamilies maps alias family names to AMI families.
func aliasFamilies() map[string]string {
	return map[string]string{
		"al2":          AMIFamilyAL2,
		"al2023":       AMIFamilyAL2023,
		"bottlerocket": AMIFamilyBottlerocket,
		"windows2019":  AMIFamilyWindows2019,
		"windows2022":  AMIFamilyWindows2022,
		"windows2025":  AMIFamilyWindows2025,
	}
}

// ParseAlias parses "family@version", where family is one of al2, al2023, bottlerocket,
// windows2019, windows2022, windows2025 and version is a release or "latest" (the only version Windows
// families support).
func ParseAlias(s string) (Alias, error) {
	name, version, found := strings.Cut(s, "@")
	if !found || name == "" || version == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
		return Alias{}, fmt.Errorf("alias %q must have the form family@version, such as al2023@latest", s)
	}
	family, ok := aliasFamilies()[name]
	if !ok {
		return Alias{}, fmt.Errorf("alias %q has family %q; use al2, al2023, bottlerocket, windows2019, windows2022 or windows2025", s, name)
	}
	if IsWindows(family) && version != AliasVersionLatest {
		return Alias{}, fmt.Errorf("alias %q: windows families only support version latest", s)
	}
	return Alias{Family: family, Version: version}, nil
}

// Alias returns the parsed alias of the EC2NodeClass's amiSelectorTerms, or nil when no term
// has a valid alias.
func (nc *EC2NodeClass) Alias() *Alias {
	for _, term := range nc.Spec.AMISelectorTerms {
		if term.Alias == "" {
			continue
		}
		if alias, err := ParseAlias(term.Alias); err == nil {
			return &alias
		}
	}
	return nil
}

// AMIFamily returns the AMI family in effect: spec.amiFamily when set, else the alias' family,
// else Custom.
func (nc *EC2NodeClass) AMIFamily() string {
	if nc.Spec.AMIFamily != nil {
		return *nc.Spec.AMIFamily
	}
	if alias := nc.Alias(); alias != nil {
		return alias.Family
	}
	return AMIFamilyCustom
}
