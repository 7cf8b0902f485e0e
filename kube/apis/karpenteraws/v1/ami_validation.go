package v1

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateAMISelection checks amiSelectorTerms and amiFamily together.
func validateAMISelection(spec *field.Path, s *EC2NodeClassSpec) field.ErrorList {
	path := spec.Child("amiSelectorTerms")
	errs := validateTermCount(path, len(s.AMISelectorTerms), true, "amiSelectorTerm")
	var alias *Alias
	for i, t := range s.AMISelectorTerms {
		p := path.Index(i)
		errs = append(errs, validateSelectorTags(p.Child("tags"), t.Tags)...)
		errs = append(errs, validatePattern(p.Child("id"), t.ID, "ami-[0-9a-z]+", "an AMI id such as ami-0123abcd")...)
		others := t.Tags != nil || t.Name != "" || t.Owner != ""
		switch {
		case len(t.Tags) == 0 && t.ID == "" && t.Name == "" && t.Alias == "" && t.SSMParameter == "":
			errs = append(errs, field.Required(p, "an amiSelectorTerm needs one of tags, id, name, alias or ssmParameter"))
		case t.ID != "" && (t.Alias != "" || others):
			errs = append(errs, field.Invalid(p, t.ID, "id cannot be combined with other fields in an amiSelectorTerm"))
		case t.Alias != "" && others:
			errs = append(errs, field.Invalid(p, t.Alias, "alias cannot be combined with other fields in an amiSelectorTerm"))
		}
		if t.Alias == "" {
			continue
		}
		if len(s.AMISelectorTerms) != 1 {
			errs = append(errs, field.Invalid(p.Child("alias"), t.Alias, "an amiSelectorTerm with an alias must be the only amiSelectorTerm"))
		}
		parsed, err := ParseAlias(t.Alias)
		switch {
		case len(t.Alias) > 30:
			errs = append(errs, field.Invalid(p.Child("alias"), t.Alias, fmt.Sprintf("must be at most 30 characters, got %d", len(t.Alias))))
		case err != nil:
			errs = append(errs, field.Invalid(p.Child("alias"), t.Alias, err.Error()))
		default:
			alias = &parsed
		}
	}
	return append(errs, validateAMIFamily(spec.Child("amiFamily"), s, alias)...)
}

// validateAMIFamily checks amiFamily: a known family, required without an alias, and equal to
// the alias' family (or Custom) with one.
func validateAMIFamily(path *field.Path, s *EC2NodeClassSpec, alias *Alias) field.ErrorList {
	hasAlias := false
	for _, t := range s.AMISelectorTerms {
		hasAlias = hasAlias || t.Alias != ""
	}
	if s.AMIFamily == nil {
		if !hasAlias {
			return field.ErrorList{field.Required(path, "amiFamily is required when no amiSelectorTerm has an alias")}
		}
		return nil
	}
	family := *s.AMIFamily
	switch family {
	case AMIFamilyAL2, AMIFamilyAL2023, AMIFamilyBottlerocket, AMIFamilyWindows2019, AMIFamilyWindows2022, AMIFamilyWindows2025, AMIFamilyCustom:
	default:
		return field.ErrorList{field.Invalid(path, family, fmt.Sprintf("must be one of AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022, Windows2025, got %q", family))}
	}
	if alias != nil && family != AMIFamilyCustom && family != alias.Family {
		return field.ErrorList{field.Invalid(path, family, fmt.Sprintf("must be %s or Custom with alias %q, got %q", alias.Family, strings.ToLower(alias.Family)+"@"+alias.Version, family))}
	}
	return nil
}
