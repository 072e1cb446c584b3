//! UI state as a reducer: playback (playing, speed, cursor), the selection (which host or zone
//! menu is open) and the notice shown above the page. Pure: no simulation, no DOM, so every
//! transition is testable. The simulation hook owns the worlds; this owns what the person chose.

use std::rc::Rc;
use yew::Reducible;

/// Playback speed: simulated seconds per wall second, or as fast as the budget allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speed {
    X1,
    X10,
    X60,
    Max,
}

impl Speed {
    pub const ALL: [Speed; 4] = [Speed::X1, Speed::X10, Speed::X60, Speed::Max];

    pub fn label(self) -> &'static str {
        match self {
            Speed::X1 => "1×",
            Speed::X10 => "10×",
            Speed::X60 => "60×",
            Speed::Max => "max",
        }
    }

    /// Simulated seconds per wall second; `None` for "as fast as it goes".
    pub fn factor(self) -> Option<f64> {
        match self {
            Speed::X1 => Some(1.0),
            Speed::X10 => Some(10.0),
            Speed::X60 => Some(60.0),
            Speed::Max => None,
        }
    }

    pub fn from_label(s: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|x| x.label() == s)
    }
}

/// What a click or Enter opened a menu for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    Host(String),
    Zone(String),
}

/// A message above the page: a refused edit, a broken link, what a fork dropped.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub kind: NoticeKind,
    pub text: String,
    /// Offer "Undo" (the last edit can be taken back).
    pub undo: bool,
    /// The later events a fork dropped: offer to keep them.
    pub dropped: Vec<sim::scenario::Event>,
}

impl Notice {
    pub fn info(text: String, undo: bool) -> Notice {
        Notice {
            kind: NoticeKind::Info,
            text,
            undo,
            dropped: Vec::new(),
        }
    }

    pub fn error(text: String) -> Notice {
        Notice {
            kind: NoticeKind::Error,
            text,
            undo: false,
            dropped: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeKind {
    Info,
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct UiState {
    pub playing: bool,
    pub speed: Speed,
    /// Report seconds asked for: the scrubber's position.
    pub cursor: f64,
    /// The scenario's duration in seconds (the scrubber's end).
    pub duration: f64,
    pub selection: Option<Selection>,
    pub notice: Option<Notice>,
    /// Counts animation-frame ticks, so the frame loop re-arms after each one.
    pub frame: u64,
    /// The embed view (`#…&embed`): the run without editor chrome. Fixed for the page's life.
    pub embed: bool,
    /// Whether the topology editor panel is open.
    pub editor_open: bool,
    /// The zone whose workers the topology draws one by one in a cluster drawn in cells.
    pub zoomed: Option<String>,
}

impl UiState {
    pub fn new(duration: f64, cursor: f64) -> UiState {
        UiState {
            playing: false,
            speed: Speed::X10,
            cursor: cursor.max(0.0).min(duration),
            duration,
            selection: None,
            notice: None,
            frame: 0,
            embed: false,
            editor_open: false,
            zoomed: None,
        }
    }

    /// Where playback wants the cursor after `dt_ms` of wall time (`None`: as far as the
    /// simulation gets within its budget).
    pub fn play_target(&self, dt_ms: f64) -> Option<f64> {
        // A long pause (background tab) must not jump the run: at most a tenth of a second counts.
        let dt = dt_ms.max(0.0).min(100.0) / 1000.0;
        self.speed
            .factor()
            .map(|f| (self.cursor + dt * f).min(self.duration))
    }

    pub fn at_end(&self) -> bool {
        self.cursor >= self.duration
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum UiAction {
    /// A scenario was loaded (picker, link, edit): the cursor goes to `cursor`.
    Loaded {
        duration: f64,
        cursor: f64,
    },
    TogglePlay,
    Pause,
    SetSpeed(Speed),
    /// The cursor moved to `t` (scrubber, step, event log, chart click).
    Seek(f64),
    /// One animation frame: the view reached `reached` seconds.
    Tick {
        reached: f64,
    },
    Select(Option<Selection>),
    Notify(Option<Notice>),
    /// Opens or closes the topology editor.
    ToggleEditor,
    /// Draws a zone's workers one by one (`Some`), or every zone in cells again.
    Zoom(Option<String>),
}

impl Reducible for UiState {
    type Action = UiAction;

    fn reduce(self: Rc<Self>, action: UiAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            UiAction::Loaded { duration, cursor } => {
                s.duration = duration;
                s.cursor = cursor.max(0.0).min(duration);
                s.playing = false;
                s.selection = None;
            }
            UiAction::TogglePlay => {
                if !s.playing && s.at_end() {
                    // Play at the end means "play it again".
                    s.cursor = 0.0;
                }
                s.playing = !s.playing;
                s.selection = None;
            }
            UiAction::Pause => s.playing = false,
            UiAction::SetSpeed(speed) => s.speed = speed,
            UiAction::Seek(t) => s.cursor = t.max(0.0).min(s.duration),
            UiAction::Tick { reached } => {
                s.frame += 1;
                if s.playing {
                    s.cursor = reached.max(0.0).min(s.duration);
                    if s.at_end() {
                        s.playing = false;
                    }
                }
            }
            UiAction::Select(sel) => s.selection = sel,
            UiAction::Notify(n) => s.notice = n,
            UiAction::ToggleEditor => s.editor_open = !s.editor_open,
            UiAction::Zoom(zone) => s.zoomed = zone,
        }
        Rc::new(s)
    }
}
