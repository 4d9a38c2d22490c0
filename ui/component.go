package ui

import tea "charm.land/bubbletea/v2"

// The root model routes messages and lays the screen out; its parts are
// components shaped as the bubbles are: Update handles a message and
// returns the component and a command, View renders it, SetSize gives it
// its room. The transcript, the input, the dialogs and lists in the
// input's place, the run streaming into the transcript, the pull's
// progress and the index's are. A component does not call the root: what
// the root must act on (a dialog answered, a list closed or an item
// chosen) it tells with a message, through the command Update returns.

// dialog is a question shown in the input's place, which the engine or
// the TUI waits on: a call to approve, a plan to review, an undo to
// confirm. Once answered it sends dialogClosedMsg and takes no more keys;
// the root closes it and carries its answer out. A key typed before the
// root has closed it goes to the input: none is lost.
type dialog interface {
	Update(msg tea.Msg) (dialog, tea.Cmd)
	View() string
	SetSize(width, height int)
	// over reports whether it was answered, and waits to be closed.
	over() bool
	// hint is the status line's note while the dialog is open.
	hint() string
	// cancel answers the engine as the user stopping the request would;
	// the root cancels a dialog instead of closing it, and the answer the
	// user gave, if any, never goes.
	cancel()
}

// panel is a list shown in the input's place, to choose from: models,
// sessions, the hits of /search, the requests /rewind goes back to. Esc
// sends panelClosedMsg; Enter sends the message of the item chosen. Keys
// typed after either, before the root has closed it, go to the input.
type panel interface {
	Update(msg tea.Msg) (panel, tea.Cmd)
	View() string
	SetSize(width, height int)
	// over reports whether it was closed, or an item chosen.
	over() bool
}

type (
	// dialogClosedMsg tells the root that d was answered.
	dialogClosedMsg struct{ d dialog }
	// panelClosedMsg tells the root that p was closed.
	panelClosedMsg struct{ p panel }
)

// send is the command that delivers msg to the root: how a component
// tells it something.
func send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }
