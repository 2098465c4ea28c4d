package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Limits on what a spec may ask of the loader. HCL's parser and evaluator
// recurse once per level of nesting and build every value in memory, so a
// small crafted file could otherwise overflow the stack or exhaust memory
// before any diagnostic is written.
const (
	// MaxFileBytes bounds each spec file, variables file and file() read.
	MaxFileBytes = 4 << 20
	// MaxNesting bounds how deep an expression nests: each bracket, quote,
	// template sequence and operator chained inside one of them is a level.
	MaxNesting = 1000
	// MaxValueBytes bounds the size of any value a spec computes: the bytes
	// of its strings, the decimal digits of its numbers, and one per bool
	// and collection element.
	MaxValueBytes = 4 << 20
	// MaxNumberDigits bounds the decimal digits of one number (1e10000 has
	// 10001): writing a number in full, as a string conversion does, takes
	// time quadratic in its digits.
	MaxNumberDigits = 10000
)

// ReadFile reads a spec or variables file: only a regular file (a FIFO
// would block forever, a device never end), and at most MaxFileBytes.
func ReadFile(name string) ([]byte, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, errors.New(unwrapPathError(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("it is %s, not a regular file", fileKind(info.Mode()))
	}
	if info.Size() > MaxFileBytes {
		return nil, fmt.Errorf("it holds %d bytes; specrun reads files of at most %d bytes", info.Size(), MaxFileBytes)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, errors.New(unwrapPathError(err))
	}
	defer f.Close()
	// the file may have been replaced since the Stat: check what was opened
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("it is not a regular file")
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, errors.New(unwrapPathError(err))
	}
	if len(src) > MaxFileBytes {
		return nil, fmt.Errorf("it holds more than %d bytes; specrun reads files of at most %d bytes", MaxFileBytes, MaxFileBytes)
	}
	return src, nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// checkSize reports src when it is over MaxFileBytes: the sources of a
// stored result are held to the same limit as files on disk.
func checkSize(src []byte, name string) hcl.Diagnostics {
	if len(src) <= MaxFileBytes {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Spec file too large",
		Detail:   fmt.Sprintf("The file %q holds %d bytes; specrun reads files of at most %d bytes.", name, len(src), MaxFileBytes),
		Subject:  &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos},
	}}
}

// CheckNesting reports a source whose expressions nest deeper than
// MaxNesting, before it is parsed: the parser would recurse once per level
// and overflow the stack. A name ending in .json is read as JSON, whose
// strings may hold HCL templates.
func CheckNesting(src []byte, name string) hcl.Diagnostics {
	if strings.HasSuffix(name, ".json") {
		return checkJSONNesting(src, name)
	}
	toks, _ := hclsyntax.LexConfig(src, name, hcl.InitialPos)
	return nestingDiags(scanNesting(toks, 0))
}

// checkExprNesting is CheckNesting for a lone expression (a --var value).
func checkExprNesting(src []byte, name string) hcl.Diagnostics {
	toks, _ := hclsyntax.LexExpression(src, name, hcl.InitialPos)
	return nestingDiags(scanNesting(toks, 0))
}

// nestingScan is where an input first nests too deep; depth 0 means never.
type nestingScan struct {
	depth int
	at    hcl.Range
}

func nestingDiags(s nestingScan) hcl.Diagnostics {
	if s.depth == 0 {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Expression too deeply nested",
		Detail: fmt.Sprintf("The expression here nests more than %d levels deep; brackets, quotes, template sequences and the operators chained inside each of them count a level. Split it into locals.",
			MaxNesting),
		Subject: s.at.Ptr(),
	}}
}

// scanNesting walks tokens keeping a stack of open brackets; each frame
// also counts the operators, dots and postfix indexes chained inside it,
// which the parser and evaluator nest as well. A comma, or a newline in a
// body or object, ends a chain. base is the depth the tokens start at.
func scanNesting(toks hclsyntax.Tokens, base int) nestingScan {
	type frame struct {
		open hclsyntax.TokenType
		ops  int
	}
	stack := []frame{{open: hclsyntax.TokenOBrace}} // the body itself
	ops := 0                                        // sum of the frames' ops
	prev := hclsyntax.TokenNil
	push := func(t hclsyntax.TokenType) { stack = append(stack, frame{open: t}) }
	pop := func() {
		if len(stack) > 1 {
			ops -= stack[len(stack)-1].ops
			stack = stack[:len(stack)-1]
		}
	}
	chain := func() { stack[len(stack)-1].ops++; ops++ }
	endChain := func() { ops -= stack[len(stack)-1].ops; stack[len(stack)-1].ops = 0 }
	for _, tok := range toks {
		switch tok.Type {
		case hclsyntax.TokenOBrack:
			switch prev {
			case hclsyntax.TokenIdent, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCBrace, hclsyntax.TokenCQuote, hclsyntax.TokenNumberLit:
				chain() // an index applied to a term nests it
			}
			push(tok.Type)
		case hclsyntax.TokenOBrace, hclsyntax.TokenOParen, hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc,
			hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
			push(tok.Type)
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCQuote,
			hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			pop()
		case hclsyntax.TokenIdent:
			// %{ if } and %{ for } open a template block that %{ endif }
			// and %{ endfor } close; the sequence around them is a frame
			if prev == hclsyntax.TokenTemplateControl {
				switch string(tok.Bytes) {
				case "if", "for":
					stack[len(stack)-2].ops++
					ops++
				case "endif", "endfor":
					if f := &stack[len(stack)-2]; f.ops > 0 {
						f.ops--
						ops--
					}
				}
			}
		case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent,
			hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenBang, hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual,
			hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq, hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq,
			hclsyntax.TokenQuestion, hclsyntax.TokenColon, hclsyntax.TokenDot, hclsyntax.TokenEllipsis:
			chain()
		case hclsyntax.TokenComma:
			endChain()
		case hclsyntax.TokenNewline:
			if top := stack[len(stack)-1].open; top == hclsyntax.TokenOBrace {
				endChain()
			}
		}
		if tok.Type != hclsyntax.TokenComment {
			prev = tok.Type
		}
		if d := base + len(stack) - 1 + ops; d > MaxNesting {
			return nestingScan{depth: d, at: tok.Range}
		}
	}
	return nestingScan{}
}

// checkJSONNesting counts the brackets of a JSON file outside its strings,
// and scans each string that holds a template as HCL template tokens,
// since HCL's JSON syntax evaluates them.
func checkJSONNesting(src []byte, name string) hcl.Diagnostics {
	depth := 0
	pos := hcl.InitialPos
	at := func(p hcl.Pos) *hcl.Range {
		return &hcl.Range{Filename: name, Start: p, End: hcl.Pos{Line: p.Line, Column: p.Column + 1, Byte: p.Byte + 1}}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '[', '{':
			depth++
			if depth > MaxNesting {
				return nestingDiags(nestingScan{depth: depth, at: *at(pos)})
			}
		case ']', '}':
			depth--
		case '"':
			start, startPos := i, pos
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			if i >= len(src) {
				return nil // unterminated: the parser reports it
			}
			pos.Byte += i - start
			pos.Column += i - start
			var s string
			if json.Unmarshal(src[start:i+1], &s) == nil && len(s) > 0 {
				toks, _ := hclsyntax.LexTemplate([]byte(s), name, startPos)
				if scan := scanNesting(toks, depth); scan.depth > 0 {
					return nestingDiags(nestingScan{depth: scan.depth, at: *at(startPos)})
				}
			}
		case '\n':
			pos.Line++
			pos.Column = 0
		}
		pos.Byte++
		pos.Column++
	}
	return nil
}

// valueSize is v's size as MaxValueBytes counts it, or a number over limit
// as soon as it is known to be over: a value of shared parts may be far
// larger than the memory it takes, and must not be walked in full.
func valueSize(v cty.Value, limit int) int {
	v, _ = v.Unmark() // an assert's figures are marked with what they are; elements unmark in turn
	if v.IsNull() || !v.IsKnown() {
		return 1
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return len(v.AsString())
	case ty == cty.Number:
		if n := numberDigits(v.AsBigFloat()); n <= MaxNumberDigits {
			return n
		}
		return limit + 1
	case ty.IsPrimitiveType():
		return 1
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		n := 1
		for it := v.ElementIterator(); it.Next() && n <= limit; {
			k, e := it.Element()
			if ty.IsMapType() || ty.IsObjectType() {
				n += len(k.AsString())
			}
			n += 1 + valueSize(e, limit-n)
		}
		return n
	}
	return 1
}

// tooLarge says that a value is over MaxValueBytes, without a final
// period: function errors get one from HCL.
func tooLarge(what string) string {
	return fmt.Sprintf("%s is larger than %d bytes (counting the bytes of its strings, the digits of its numbers and one per bool and element), the most a spec value may hold, or holds a number of more than %d digits",
		what, MaxValueBytes, MaxNumberDigits)
}
