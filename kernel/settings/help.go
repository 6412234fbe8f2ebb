package settings

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Help answers -h, --help and --help-settings: not a failure (the process
// prints Text to standard output and exits 0).
type Help struct{ Text string }

func (h *Help) Error() string { return "help requested" }

// UsageError is a command line a command cannot read (an unknown flag, a
// stray argument): one line naming the problem and where the help is.
type UsageError struct {
	Command string // as in "platform <Command> -h"
	Err     error
}

func (e *UsageError) Error() string {
	return fmt.Sprintf("%v (see: platform %s -h)", e.Err, e.Command)
}

func (e *UsageError) Unwrap() error { return e.Err }

// helpSettingsFlag lists the settings: a command's own help stays short.
const helpSettingsFlag = "help-settings"

// Parse reads a command's own flags (a command that reads no settings)
// with Load's conventions: a quiet flag set, -h as Help, errors as one
// UsageError line.
func Parse(name string, fs *flag.FlagSet, args []string) error {
	quiet(fs)
	return parse(name, fs, args, ownFlags(fs), nil)
}

// quiet stops the flag package from printing usage or errors itself.
func quiet(fs *flag.FlagSet) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
}

// ownFlags names the flags defined so far: the command's own, before the
// settings are added.
func ownFlags(fs *flag.FlagSet) map[string]bool {
	own := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { own[f.Name] = true })
	return own
}

func parse(name string, fs *flag.FlagSet, args []string, own map[string]bool, all []setting) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return &Help{Text: ownHelp(name, fs, own, all != nil)}
	case err != nil:
		return &UsageError{Command: commandOf(name), Err: err}
	case fs.NArg() > 0:
		return &UsageError{Command: commandOf(name), Err: fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if f := fs.Lookup(helpSettingsFlag); f != nil && f.Value.String() == "true" {
		return &Help{Text: settingsHelp(name, all)}
	}
	return nil
}

// commandOf is a usage name without its placeholders ("customer create").
func commandOf(name string) string {
	var words []string
	for _, w := range strings.Fields(name) {
		if !strings.HasPrefix(w, "<") && !strings.HasPrefix(w, "[") {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// ownHelp lists the command's own flags; the settings are one line away.
func ownHelp(name string, fs *flag.FlagSet, own map[string]bool, withSettings bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: platform %s [flags]\n", name)
	mine := flag.NewFlagSet(name, flag.ContinueOnError)
	mine.SetOutput(&b)
	fs.VisitAll(func(f *flag.Flag) {
		if own[f.Name] {
			mine.Var(f.Value, f.Name, f.Usage)
			mine.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	if len(own) > 0 {
		b.WriteString("\nflags:\n")
		mine.PrintDefaults()
	}
	if withSettings {
		fmt.Fprintf(&b, "\nEvery setting (environment variable) is also a flag that wins over it:\n"+
			"  platform %s --%s lists them.\n", commandOf(name), helpSettingsFlag)
	}
	return b.String()
}

// settingsHelp lists every setting with its flag, its default and the
// value the environment sets (never a secret's).
func settingsHelp(name string, all []setting) string {
	var b strings.Builder
	fmt.Fprintf(&b, "settings of platform %s: each an environment variable, or the flag after it (the flag wins)\n\n", commandOf(name))
	for _, s := range all {
		var notes []string
		if s.def != "" {
			notes = append(notes, "default "+strconv.Quote(s.def))
		}
		if v, ok := os.LookupEnv(s.env); ok && secretSettings[s.env] {
			notes = append(notes, "set")
		} else if ok {
			notes = append(notes, "set to "+strconv.Quote(v))
		}
		line := "  " + s.env + "  --" + s.flag
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, ", ") + ")"
		}
		fmt.Fprintf(&b, "%s\n      %s\n", line, s.help)
	}
	return b.String()
}

// boolValue is a setting read as a string that may be given as a bare
// flag (--accept-lost-master-key means true).
type boolValue struct{ s *string }

func (b boolValue) String() string {
	if b.s == nil {
		return ""
	}
	return *b.s
}
func (b boolValue) Set(v string) error { *b.s = v; return nil }
func (b boolValue) IsBoolFlag() bool   { return true }

// boolean reads a boolean setting's text.
func boolean(v string) (bool, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("want true or false")
	}
	return b, nil
}
