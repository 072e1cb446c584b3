//! kube-vip in ARP mode for the control plane: a static pod beside each apiserver runs leader
//! election on its Lease (`plndr-cp-lock` in kube-system, through the local apiserver) with
//! kube-vip's timings; the holder answers ARP for the virtual IP, so clients and kubelets that
//! use the VIP reach its apiserver. Renewing needs a working apiserver: a holder whose apiserver
//! cannot write (etcd without quorum) gives the VIP up after the renew deadline, and nobody can
//! take it. The world routes the VIP to the holder.
//!
//! Left out: the gratuitous ARP's own delay, Services of type LoadBalancer, BGP mode.

use crate::k8s::api::ApiPayload;
use crate::k8s::leading::Work;
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::Ctx;
use crate::kernel::process::Sub;
use crate::kernel::time::Duration;

/// What the lease holder does: hold the VIP. It needs no client of its own.
#[derive(Clone, Debug)]
pub struct HoldVip;

impl Work for HoldVip {
    type Spec = ();
    fn fresh(_: &(), _: &Ctx) -> Self {
        HoldVip
    }
    fn owns(&self, _: Sub) -> bool {
        false
    }
    fn on_api(&mut self, _: &mut Ctx, _: &ApiPayload) {}
    fn on_timeout(&mut self, _: &mut Ctx, _: Sub) {}
    fn run(&mut self, _: &mut Ctx) {}
}

impl SelfTimed for HoldVip {
    /// It holds the VIP while leading: the lease's check is its `Leading`'s.
    fn quiet(&self, _: &Stand) -> Quiet {
        Quiet::Yes
    }

    fn skipped(&mut self, _: Duration, _: &Stand) {}
}
