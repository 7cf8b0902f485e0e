// Package requirements is the label algebra Karpenter schedules with: node selector requirements
// (In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte, with minValues) as sets of allowed values
// that can be intersected, tested for compatibility and printed in an operator's words.
package requirements
