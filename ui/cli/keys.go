package cli

// Keys typed while lathe starts are kept for the interactive UI. Until the
// UI reads the terminal, a terminal in its ordinary (canonical) mode keeps
// what is typed, but echoes it onto the screen and turns Enter into a line
// feed, which the UI reads as Ctrl+J, a new line in the input. So from the
// moment lathe knows it runs the UI, the terminal stops echoing and hands
// over each key as typed (see holdKeys), while output and Ctrl+C work as
// before; the UI then reads what was typed meanwhile, Enter as Enter.
