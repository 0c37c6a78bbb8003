package transport

import (
	"fmt"
	"time"
)

// Date is a day of the calendar, without a time of day or a time zone: a field of type date. It
// travels as an RFC 3339 full-date (2026-01-31) on every protocol. Its zero value is no date.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf is the day t falls on, in t's own location.
func DateOf(t time.Time) Date {
	year, month, day := t.Date()
	return Date{Year: year, Month: month, Day: day}
}

// ParseDate reads an RFC 3339 full-date such as 2026-01-31.
func ParseDate(text string) (Date, error) {
	t, ok := parseDate(text)
	if !ok {
		return Date{}, fmt.Errorf("%q is not a date such as 2026-01-31", text)
	}
	return DateOf(t), nil
}

// String is the date as it travels, such as 2026-01-31.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// IsValid reports whether d is a day of the calendar (years 1 to 9999).
func (d Date) IsValid() bool {
	return d.Year <= 9999 && validDate(int64(d.Year), int64(d.Month), int64(d.Day))
}

// IsZero reports whether d is the zero Date, which is no date.
func (d Date) IsZero() bool {
	return d == Date{}
}

// In is the start of the day d in loc.
func (d Date) In(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// MarshalText writes the date as it travels; a date that is no day of the calendar is an error.
func (d Date) MarshalText() ([]byte, error) {
	if !d.IsValid() {
		return nil, fmt.Errorf("%s is not a day of the calendar", d)
	}
	return []byte(d.String()), nil
}

// UnmarshalText reads an RFC 3339 full-date.
func (d *Date) UnmarshalText(text []byte) error {
	parsed, err := ParseDate(string(text))
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}
