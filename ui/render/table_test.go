package render

import (
	"strings"
	"testing"
)

func rows() []*Row {
	return []*Row{
		{Key: "b", Cells: []string{"b", "$0.100"}, Nums: []float64{0, 0.1}},
		{Key: "a", Cells: []string{"a", "$0.300"}, Nums: []float64{0, 0.3}},
		{Key: "c", Cells: []string{"c", "$0.200"}, Nums: []float64{0, 0.2}},
	}
}

func cols() []Column {
	return []Column{{Name: "NAME", Sort: 'N'}, {Name: "$/H", Sort: 'C', Numeric: true, DescFirst: true, Align: AlignRight}}
}

func keys(t *Table) string {
	var k []string
	for _, r := range t.Rows {
		k = append(k, r.Key)
	}
	return strings.Join(k, "")
}

func TestBuildSortsFiltersAndIndexes(t *testing.T) {
	in := rows()
	s := Unsorted()
	if got := keys(Build(cols(), in, Query{Sort: s}, nil)); got != "bac" {
		t.Errorf("kind's order: %s", got)
	}
	s = s.Toggle(cols(), ColumnBySort(cols(), 'C'))
	if !s.Desc {
		t.Errorf("cost sorts descending first")
	}
	if got := keys(Build(cols(), in, Query{Sort: s}, nil)); got != "acb" {
		t.Errorf("by cost, dearest first: %s", got)
	}
	s = s.Toggle(cols(), 1)
	if got := keys(Build(cols(), in, Query{Sort: s}, nil)); got != "bca" {
		t.Errorf("by cost, cheapest first: %s", got)
	}
	s = s.Toggle(cols(), 0)
	tb := Build(cols(), in, Query{Sort: s}, nil)
	if got := keys(tb); got != "abc" {
		t.Errorf("by name: %s", got)
	}
	if i, ok := tb.Find("c"); !ok || i != 2 {
		t.Errorf("Find(c) = %d, %v", i, ok)
	}
	if in[0].Key != "b" {
		t.Errorf("Build sorted its input")
	}
	f, _ := ParseFilter("!a")
	tb = Build(cols(), in, Query{Filter: f, Sort: Unsorted()}, nil)
	if got, counter := keys(tb), tb.Counter(); got != "bc" || counter != "2/3" {
		t.Errorf("filtered: %s %s", got, counter)
	}
	if tb.Widths[1] != 6 {
		t.Errorf("widths %v", tb.Widths)
	}
}
