package problems

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestError(t *testing.T) {
	kind := errors.New("invalid test file")
	many := make([]string, 52)
	for i := range many {
		many[i] = fmt.Sprint("p", i)
	}
	for _, tc := range []struct {
		name     string
		problems []string
		want     string
	}{
		{"one", []string{"a"}, "1 problem(s): a"},
		{"in order", []string{"b", "a"}, "2 problem(s): b; a"},
		{"the first 50 named", many, "52 problem(s): p0; p1; p2; p3; p4; p5; p6; p7; p8; p9; p10; p11; p12; p13; p14; p15; " +
			"p16; p17; p18; p19; p20; p21; p22; p23; p24; p25; p26; p27; p28; p29; p30; p31; p32; p33; p34; p35; p36; p37; " +
			"p38; p39; p40; p41; p42; p43; p44; p45; p46; p47; p48; p49; … and 2 more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fmt.Errorf("loading: %w", New(kind, tc.problems...))
			assert.EqualError(t, err, "loading: "+tc.want)
			assert.ErrorIs(t, err, kind)
			var pe *Error
			assert.True(t, errors.As(err, &pe))
			assert.Equal(t, tc.problems, pe.Problems)
		})
	}
}
