package abrate

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRecordMedian(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rounds []Sample
		want   Sample
	}{
		{"one round", []Sample{{RequestsPerSecond: 7, P50: 1, P99: 2, Complete: 70, CPUMicrosPerReq: 3}},
			Sample{RequestsPerSecond: 7, P50: 1, P99: 2, Complete: 70, CPUMicrosPerReq: 3}},
		{"odd: each figure's middle value, apart", []Sample{
			{RequestsPerSecond: 300, P50: 1, P99: 9, Complete: 30, CPUMicrosPerReq: 10},
			{RequestsPerSecond: 100, P50: 3, P99: 1, Complete: 10, CPUMicrosPerReq: 30},
			{RequestsPerSecond: 200, P50: 2, P99: 5, Complete: 20, CPUMicrosPerReq: 20},
		}, Sample{RequestsPerSecond: 200, P50: 2, P99: 5, Complete: 20, CPUMicrosPerReq: 20}},
		{"even: the mean of the middle two", []Sample{
			{RequestsPerSecond: 100, P99: 4}, {RequestsPerSecond: 400, P99: 1}, {RequestsPerSecond: 200, P99: 2}, {RequestsPerSecond: 300, P99: 3},
		}, Sample{RequestsPerSecond: 250, P99: 2.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := record{}
			for _, s := range tc.rounds {
				r.add("k", s)
			}
			got, ok := r.median("k")
			assert.True(t, ok)
			assert.Equal(t, tc.want, got)
		})
	}
	_, ok := record{}.median("none")
	assert.False(t, ok, "a key without rounds has no median")
}

func TestValueAndRatio(t *testing.T) {
	funcs := view{}.funcs()
	ratio := funcs["ratio"].(func(a, b Value) Value)
	mul := funcs["mul"].(func(a Value, f float64) Value)
	toInt := funcs["int"].(func(a Value) int64)
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Value(39412.525), "39412.53"}, {Value(0.5), "0.50"}, {ratio(3, 4), "0.75"}, {ratio(58628.59, 62437.64), "0.94"},
		{ratio(1, 0), "+Inf"}, {mul(101, 0.5), "50.50"},
	} {
		assert.Equal(t, tc.want, tc.v.String())
		assert.Equal(t, tc.want, fmt.Sprint(tc.v), "printed as %%v")
	}
	assert.Equal(t, "      50", fmt.Sprintf("%8.0f", Value(50.4)), "number verbs read the number")
	assert.Equal(t, "   50.40", fmt.Sprintf("%8s", Value(50.4)), "%%s reads the two decimals")
	assert.Equal(t, int64(50), toInt(mul(101, 0.5)), "int truncates, as printf %%d of awk did")
	assert.True(t, math.IsNaN(float64(ratio(0, 0))))
}
