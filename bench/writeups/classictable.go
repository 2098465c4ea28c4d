package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// classicSpec is the classic example, from the repository root.
const classicSpec = "examples/common-operations.hcl"

// classicRow is one row of the table in the classic example's header
// comment: the write-up's row with its Time per (ns), and the instance and
// label that stand for it. Row is "-" for an instance with no write-up row
// (NS is then NaN); Instance and Label are "-" for a row with no analog.
type classicRow struct {
	Row      string
	NS       float64
	Instance string
	Label    string
}

// readClassicTable reads the Markdown table of "# |" lines from the
// example's header comment, skipping its heading and separator.
func readClassicTable(r io.Reader) ([]classicRow, error) {
	var rows []classicRow
	sc := bufio.NewScanner(r)
	line, heading := 0, false
	for sc.Scan() {
		line++
		text, ok := strings.CutPrefix(sc.Text(), "# |")
		if !ok {
			if len(rows) > 0 || heading {
				break // the table is one run of lines
			}
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimSpace(text), "|"), "|")
		if len(cells) != 4 {
			return nil, fmt.Errorf("line %d: %d cells, want 4 (row, ns, instance, label)", line, len(cells))
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if !heading {
			heading = true // the column names
			continue
		}
		if strings.Trim(cells[0], "-:") == "" && cells[0] != "-" {
			continue // the separator
		}
		row := classicRow{Row: cells[0], NS: math.NaN(), Instance: cells[2], Label: cells[3]}
		if cells[1] != "-" {
			ns, err := strconv.ParseFloat(cells[1], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: ns %q: %w", line, cells[1], err)
			}
			row.NS = ns
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no table of \"# |\" lines")
	}
	return rows, nil
}
