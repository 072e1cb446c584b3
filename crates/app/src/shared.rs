//! `Shared<T>`: an `Rc` that props compare by pointer. `Rc<T>`'s own `PartialEq` compares the
//! values, which for a report of thousands of events costs more than drawing it: a component
//! holding one would compare it on every render of its parent.

use std::ops::Deref;
use std::rc::Rc;

#[derive(Debug)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Shared<T> {
    pub fn new(rc: Rc<T>) -> Self {
        Shared(rc)
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
