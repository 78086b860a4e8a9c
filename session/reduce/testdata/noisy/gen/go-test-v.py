# Writes the throwaway Go module behind go-test-v.txt into the current
# directory: 280 tests of package calc, one table test whose "negative" case
# fails (Div truncates toward zero), and 90 parallel tests in package parse.
# Then: go test -v ./...
import os
import random
random.seed(7)
os.makedirs('calc', exist_ok=True)
os.makedirs('parse', exist_ok=True)
open('go.mod', 'w').write('module example.com/calc\n\ngo 1.26.0\n')
open('calc/calc.go', 'w').write('''// Package calc does arithmetic on small integers.
package calc

func Add(a, b int) int { return a + b }
func Mul(a, b int) int { return a * b }

// Div divides, rounding toward negative infinity.
func Div(a, b int) int {
	return a / b // bug: truncates toward zero
}
''')
out = ['package calc', '', 'import "testing"', '']
for i in range(160):
    a, b = random.randint(-50, 50), random.randint(-50, 50)
    out.append(f'func TestAdd{i:03d}(t *testing.T) {{\n\tif got := Add({a}, {b}); got != {a+b} {{\n\t\tt.Errorf("Add({a}, {b}) = %d, want {a+b}", got)\n\t}}\n}}\n')
for i in range(120):
    a, b = random.randint(-50, 50), random.randint(-50, 50)
    out.append(f'func TestMul{i:03d}(t *testing.T) {{\n\tt.Logf("checking {a}*{b}")\n\tif got := Mul({a}, {b}); got != {a*b} {{\n\t\tt.Errorf("Mul = %d", got)\n\t}}\n}}\n')
out.append('''func TestDiv(t *testing.T) {
	tests := []struct {
		name       string
		a, b, want int
	}{
		{"positive", 7, 2, 3},
		{"exact", 8, 2, 4},
		{"negative", -7, 2, -4},
		{"both_negative", -7, -2, 3},
		{"zero", 0, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("Div(%d, %d)", tt.a, tt.b)
			if got := Div(tt.a, tt.b); got != tt.want {
				t.Errorf("Div(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
''')
open('calc/calc_test.go', 'w').write('\n'.join(out))
p = ['package parse', '', 'import (\n\t"strconv"\n\t"testing"\n)', '']
for i in range(90):
    p.append(f'func TestAtoi{i:03d}(t *testing.T) {{\n\tt.Parallel()\n\tif n, err := strconv.Atoi("{i*37}"); err != nil || n != {i*37} {{\n\t\tt.Fatal(n, err)\n\t}}\n}}\n')
open('parse/parse_test.go', 'w').write('\n'.join(p))
open('parse/parse.go', 'w').write('// Package parse is empty.\npackage parse\n')
