//! One `<option>` of a `<select>`, as every select of the page draws it.

use yew::{html, AttrValue, Html};

/// One `<option>` of a `<select>`, for the page's selects.
pub fn option(value: impl Into<AttrValue>, label: impl Into<AttrValue>, selected: bool) -> Html {
    choice(value.into(), label.into(), selected)
}

/// [`option`]'s drawing, not generic: every kind of argument shares its code (the download has
/// little room), and adds only its conversion.
fn choice(value: AttrValue, label: AttrValue, selected: bool) -> Html {
    html! { <option {value} {selected}>{ label }</option> }
}
