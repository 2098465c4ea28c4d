package spec

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// VarLiteral writes a known value as an HCL literal that ParseVarLiteral
// reads back to the same value: strings quoted and escaped, numbers in
// full precision, collections as [...] and objects as { "key" = ... }.
// Plan.Vars holds variables in this form.
func VarLiteral(v cty.Value) string {
	var b strings.Builder
	writeLiteral(&b, v)
	return b.String()
}

func writeLiteral(b *strings.Builder, v cty.Value) {
	ty := v.Type()
	switch {
	case v.IsNull() || !v.IsKnown():
		b.WriteString("null")
	case ty == cty.String:
		writeQuoted(b, v.AsString())
	case ty == cty.Number:
		b.WriteString(exactNumber(v.AsBigFloat()))
	case ty == cty.Bool:
		b.WriteString(strconv.FormatBool(v.True()))
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		b.WriteByte('[')
		for i, it := 0, v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			_, e := it.Element()
			writeLiteral(b, e)
		}
		b.WriteByte(']')
	case ty.IsMapType() || ty.IsObjectType():
		b.WriteByte('{')
		for i, it := 0, v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			k, e := it.Element()
			writeQuoted(b, k.AsString())
			b.WriteString(" = ")
			writeLiteral(b, e)
		}
		b.WriteByte('}')
	default:
		b.WriteString("null")
	}
}

// writeQuoted writes s as a quoted HCL string whose template sequences
// and control characters are escaped, so that it reads back as written.
func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case (r == '$' || r == '%') && i+1 < len(s) && s[i+1] == '{':
			b.WriteRune(r) // "$${" is a literal "${"
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError && n == 1:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
}

// exactNumber writes a number with as many digits as its precision needs,
// so that parsing it again gives the same number. Beyond 1e±19000 it is
// written approximately: its exact form would take minutes to build.
func exactNumber(bf *big.Float) string {
	switch exp := bf.MantExp(nil); {
	case bf.IsInf():
		return approxNumber(bf)
	case exp > 1<<16 || exp < -(1<<16):
		return approxNumber(bf)
	case bf.IsInt():
		i, _ := bf.Int(nil)
		return i.String()
	}
	// The shortest form that identifies bf at its precision does not
	// always parse back to bf (cty parses decimals its own way); add
	// digits until it does.
	s := bf.Text('g', -1)
	for digits := 2 * int(bf.Prec()); !readsBack(s, bf) && digits <= 1<<14; digits *= 2 {
		s = bf.Text('g', digits)
	}
	return s
}

// readsBack reports whether s parses as a number equal to bf.
func readsBack(s string, bf *big.Float) bool {
	v, err := cty.ParseNumberVal(s)
	return err == nil && v.AsBigFloat().Cmp(bf) == 0
}

// ParseVarLiteral reads a value written by VarLiteral (a stored result's
// spec.vars) as a value of type ty. Unlike ParseVarValue, a string must be
// quoted: the text is always an HCL expression.
func ParseVarLiteral(raw string, ty cty.Type) (cty.Value, hcl.Diagnostics) {
	bad := func(detail string) (cty.Value, hcl.Diagnostics) {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid stored variable value",
			Detail:   fmt.Sprintf("The stored value %s %s.", shorten(raw, 60), detail),
		}}
	}
	if diags := checkExprNesting([]byte(raw), "<value>"); diags.HasErrors() {
		return bad("nests too deeply")
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), "<value>", hcl.InitialPos)
	if diags.HasErrors() {
		return bad("is not an HCL literal")
	}
	v, diags := evaluate(expr, nil)
	if diags.HasErrors() || !v.IsWhollyKnown() {
		return bad("is not an HCL literal")
	}
	if infinite(v) {
		return bad("holds an infinite number")
	}
	if ty == cty.DynamicPseudoType {
		return v, nil
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		return bad(fmt.Sprintf("is not %s: %s", ty.FriendlyName(), err))
	}
	return cv, nil
}

// infinite reports whether v holds an infinite number (1/0), which no
// literal can write: a variable is refused one, so that it can be stored.
func infinite(v cty.Value) bool {
	if v.IsNull() || !v.IsKnown() {
		return false
	}
	ty := v.Type()
	switch {
	case ty == cty.Number:
		return v.AsBigFloat().IsInf()
	case ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			if _, e := it.Element(); infinite(e) {
				return true
			}
		}
	}
	return false
}

func shorten(s string, n int) string {
	if len(s) > n {
		s = s[:n] + "..."
	}
	return strconv.Quote(s)
}
