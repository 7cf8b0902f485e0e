package v1

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	maxSelectorTerms = 30
	maxSelectorTags  = 20
)

// Validate checks a (defaulted) EC2NodeClass against the rules of its CRD. Each error's Field is
// the path of the offending field and its Detail says what is allowed.
func (nc *EC2NodeClass) Validate() field.ErrorList {
	var errs field.ErrorList
	name := field.NewPath("metadata", "name")
	if nc.Name == "" {
		errs = append(errs, field.Required(name, "a name is required"))
	} else if msgs := apivalidation.IsDNS1123Subdomain(nc.Name); len(msgs) > 0 {
		errs = append(errs, field.Invalid(name, nc.Name, fmt.Sprintf("%q is not a valid name: %s", nc.Name, strings.Join(msgs, "; "))))
	}
	spec := field.NewPath("spec")
	s := &nc.Spec
	errs = append(errs, validateSubnetTerms(spec.Child("subnetSelectorTerms"), s.SubnetSelectorTerms)...)
	errs = append(errs, validateSecurityGroupTerms(spec.Child("securityGroupSelectorTerms"), s.SecurityGroupSelectorTerms)...)
	errs = append(errs, validateCapacityReservationTerms(spec.Child("capacityReservationSelectorTerms"), s.CapacityReservationSelectorTerms)...)
	errs = append(errs, validateAMISelection(spec, s)...)
	errs = append(errs, validateIdentity(spec, s)...)
	errs = append(errs, validateTags(spec.Child("tags"), s.Tags)...)
	errs = append(errs, validateKubelet(spec.Child("kubelet"), s.Kubelet)...)
	errs = append(errs, validateBlockDeviceMappings(spec.Child("blockDeviceMappings"), s.BlockDeviceMappings)...)
	errs = append(errs, validateNetworking(spec, s)...)
	if s.InstanceStorePolicy != nil && *s.InstanceStorePolicy != InstanceStorePolicyRAID0 {
		errs = append(errs, field.Invalid(spec.Child("instanceStorePolicy"), *s.InstanceStorePolicy,
			fmt.Sprintf("must be RAID0, got %q", *s.InstanceStorePolicy)))
	}
	return append(errs, validateMetadataOptions(spec.Child("metadataOptions"), s.MetadataOptions)...)
}

// validateIdentity checks that exactly one of role and instanceProfile is set.
func validateIdentity(spec *field.Path, s *EC2NodeClassSpec) field.ErrorList {
	hasProfile := s.InstanceProfile != nil
	switch {
	case s.Role != "" && hasProfile:
		return field.ErrorList{field.Invalid(spec, "role and instanceProfile", "must specify exactly one of role and instanceProfile, got both")}
	case s.Role == "" && !hasProfile:
		return field.ErrorList{field.Required(spec.Child("role"), "must specify exactly one of role and instanceProfile, got neither")}
	case hasProfile && *s.InstanceProfile == "":
		return field.ErrorList{field.Invalid(spec.Child("instanceProfile"), "", "instanceProfile cannot be empty")}
	}
	return nil
}

func validateTags(path *field.Path, tags map[string]string) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(tags) {
		switch {
		case k == "":
			errs = append(errs, field.Invalid(path.Key(k), k, "empty tag keys aren't supported"))
		case k == TagKeyEKSClusterName, k == TagKeyNodePool, k == TagKeyNodeClaim, k == TagKeyNodeClass:
			errs = append(errs, field.Invalid(path.Key(k), k, fmt.Sprintf("tag %s is restricted: the provider sets it", k)))
		case strings.HasPrefix(k, "kubernetes.io/cluster"):
			errs = append(errs, field.Invalid(path.Key(k), k, "tags starting with kubernetes.io/cluster are restricted: the provider sets them"))
		}
	}
	return errs
}

// validateSelectorTags checks the tags of a selector term: at most 20, no empty keys or values.
func validateSelectorTags(path *field.Path, tags map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(tags) > maxSelectorTags {
		errs = append(errs, field.Invalid(path, len(tags), fmt.Sprintf("must have at most %d tags, got %d", maxSelectorTags, len(tags))))
	}
	for _, k := range sortedKeys(tags) {
		if k == "" || tags[k] == "" {
			errs = append(errs, field.Invalid(path.Key(k), tags[k], "empty tag keys or values aren't supported"))
		}
	}
	return errs
}

// validateTermCount checks the number of selector terms; term names one term, for messages.
func validateTermCount(path *field.Path, n int, required bool, term string) field.ErrorList {
	switch {
	case required && n == 0:
		return field.ErrorList{field.Required(path, fmt.Sprintf("at least one %s is required", term))}
	case n > maxSelectorTerms:
		return field.ErrorList{field.Invalid(path, n, fmt.Sprintf("must have at most %d terms, got %d", maxSelectorTerms, n))}
	}
	return nil
}

func validatePattern(path *field.Path, value, pattern, what string) field.ErrorList {
	if value == "" || regexp.MustCompile(pattern).MatchString(value) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("must be %s, got %q", what, value))}
}

func validateSubnetTerms(path *field.Path, terms []SubnetSelectorTerm) field.ErrorList {
	errs := validateTermCount(path, len(terms), true, "subnetSelectorTerm")
	for i, t := range terms {
		p := path.Index(i)
		errs = append(errs, validateSelectorTags(p.Child("tags"), t.Tags)...)
		errs = append(errs, validatePattern(p.Child("id"), t.ID, "subnet-[0-9a-z]+", "a subnet id such as subnet-0123abcd")...)
		switch {
		case len(t.Tags) == 0 && t.ID == "":
			errs = append(errs, field.Required(p, "a subnetSelectorTerm needs one of tags or id"))
		case t.ID != "" && t.Tags != nil:
			errs = append(errs, field.Invalid(p, t.ID, "id cannot be combined with other fields in a subnetSelectorTerm"))
		}
	}
	return errs
}

func validateSecurityGroupTerms(path *field.Path, terms []SecurityGroupSelectorTerm) field.ErrorList {
	errs := validateTermCount(path, len(terms), true, "securityGroupSelectorTerm")
	for i, t := range terms {
		p := path.Index(i)
		errs = append(errs, validateSelectorTags(p.Child("tags"), t.Tags)...)
		errs = append(errs, validatePattern(p.Child("id"), t.ID, "sg-[0-9a-z]+", "a security group id such as sg-0123abcd")...)
		switch {
		case len(t.Tags) == 0 && t.ID == "" && t.Name == "":
			errs = append(errs, field.Required(p, "a securityGroupSelectorTerm needs one of tags, id or name"))
		case t.ID != "" && (t.Tags != nil || t.Name != ""):
			errs = append(errs, field.Invalid(p, t.ID, "id cannot be combined with other fields in a securityGroupSelectorTerm"))
		case t.Name != "" && t.Tags != nil:
			errs = append(errs, field.Invalid(p, t.Name, "name cannot be combined with other fields in a securityGroupSelectorTerm"))
		}
	}
	return errs
}

func validateCapacityReservationTerms(path *field.Path, terms []CapacityReservationSelectorTerm) field.ErrorList {
	errs := validateTermCount(path, len(terms), false, "capacityReservationSelectorTerm")
	for i, t := range terms {
		p := path.Index(i)
		errs = append(errs, validateSelectorTags(p.Child("tags"), t.Tags)...)
		errs = append(errs, validatePattern(p.Child("id"), t.ID, "^cr-[0-9a-z]+$", "a capacity reservation id such as cr-0123abcd")...)
		errs = append(errs, validatePattern(p.Child("ownerID"), t.OwnerID, "^[0-9]{12}$", "a 12-digit account id")...)
		if t.InstanceMatchCriteria != "" && t.InstanceMatchCriteria != "open" && t.InstanceMatchCriteria != "targeted" {
			errs = append(errs, field.Invalid(p.Child("instanceMatchCriteria"), t.InstanceMatchCriteria,
				fmt.Sprintf("must be open or targeted, got %q", t.InstanceMatchCriteria)))
		}
		switch {
		case len(t.Tags) == 0 && t.ID == "" && t.InstanceMatchCriteria == "":
			errs = append(errs, field.Required(p, "a capacityReservationSelectorTerm needs one of tags, id or instanceMatchCriteria"))
		case t.ID != "" && (t.Tags != nil || t.OwnerID != "" || t.InstanceMatchCriteria != ""):
			errs = append(errs, field.Invalid(p, t.ID, "id cannot be combined with other fields in a capacityReservationSelectorTerm"))
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
