package aws

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// tagFilters turns selector tags into EC2 filters: "tag:KEY" for a value, "tag-key" for the
// value "*" (the key exists with any value). EC2 ANDs the filters of one request.
func tagFilters(tags map[string]string) []ec2types.Filter {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	filters := make([]ec2types.Filter, 0, len(keys))
	for _, k := range keys {
		if v := tags[k]; v == "*" {
			filters = append(filters, ec2types.Filter{Name: sdkaws.String("tag-key"), Values: []string{k}})
		} else {
			filters = append(filters, ec2types.Filter{Name: sdkaws.String("tag:" + k), Values: []string{v}})
		}
	}
	return filters
}

// selectByTerms resolves an EC2NodeClass's selector terms as Karpenter does: one describe call
// per term (terms ORed; the filters of one term ANDed by EC2), a term without filters skipped (it
// would select everything; validation rejects it), the results merged by id and sorted by it.
// field names the terms in errors ("subnetSelectorTerms").
func selectByTerms[T any](ctx context.Context, field string, terms [][]ec2types.Filter,
	describe func(context.Context, []ec2types.Filter) ([]T, error), id func(T) string) ([]T, error) {
	byID := map[string]T{}
	for i, filters := range terms {
		if len(filters) == 0 {
			continue
		}
		found, err := describe(ctx, filters)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		for _, v := range found {
			byID[id(v)] = v
		}
	}
	out := slices.Collect(maps.Values(byID))
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(id(a), id(b)) })
	return out, nil
}

// filter is one EC2 filter on one value.
func filter(name, value string) ec2types.Filter {
	return ec2types.Filter{Name: sdkaws.String(name), Values: []string{value}}
}

// cacheKey is a stable key for selector terms (or anything JSON-encodable).
func cacheKey(parts ...any) string {
	data, err := json.Marshal(parts)
	if err != nil {
		// Selector terms are strings and maps of strings: they always encode.
		panic("encoding cache key: " + err.Error())
	}
	h := fnv.New64a()
	_, _ = h.Write(data)
	return strconv.FormatUint(h.Sum64(), 36)
}

// tagMap turns EC2 tags into a map.
func tagMap(tags []ec2types.Tag) map[string]string {
	out := make(map[string]string, len(tags))
	for _, t := range tags {
		out[sdkaws.ToString(t.Key)] = sdkaws.ToString(t.Value)
	}
	return out
}
