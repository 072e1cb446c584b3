//! The page's parts. Each reads the [`Session`](crate::session::Session) from the context and
//! builds its own few callbacks from the session's verbs, so `App` only places them: a new
//! panel is a new module here and one line in the layout.

pub mod cluster;
pub mod console;
pub mod controls;
pub mod editor;
pub mod facts;
pub mod header;
pub mod notice;
pub mod picker;
pub mod questions;
pub mod share;
pub mod status;
pub mod timeline;

pub use cluster::ClusterPanel;
pub use console::ConsolePanel;
pub use controls::Controls;
pub use editor::EditorPanel;
pub use facts::Facts;
pub use header::{EmbedHeader, Header};
pub use notice::NoticeBar;
pub use picker::ScenarioPicker;
pub use questions::Questions;
pub use share::Share;
pub use status::StatusBar;
pub use timeline::{ChartsPanel, LogPanel};
