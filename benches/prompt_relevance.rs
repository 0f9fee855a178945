//! What reaches the model when a task is given (issue "Step 17 of 19", items 1 and 2), on
//! real histories: each history's older commits (80 %) become the memory — each commit an
//! episode whose decision is the commit's subject, promoted (a verified record), and whose
//! session record lists the files the commit touched — in a clone of the repository checked
//! out at the last of them (its real files in the work tree, no remote); the newer commits'
//! subjects are the prompts. Each prompt is sent as Claude Code sends it, through the real
//! hooks in a fresh episode (`hook session-start`, `hook prompt`, `hook session-end`), and
//! what `hook prompt` printed for the client is read back: the records it put before the
//! model.
//!
//! A record is **relevant** to a prompt when its episode touched a file the prompt's commit
//! touched, hub files left out (a file more than 5 % of the older commits touched: a
//! changelog, a lock file, the one module every change passes through); a prompt is
//! **answerable** when some record is relevant to it, and the prompts are the answerable
//! newer commits, evenly spaced. Reported, per history and per way of choosing records:
//! hit@1 and hit@3 (a relevant record first, among the first three), precision (relevant
//! records shown / records shown, over all prompts), records shown per prompt, and, for the
//! **off-topic** prompts — the next history's prompts, sent to this one's store — the share
//! that got nothing at all. The ways:
//!
//! - `hook prompt`: what the model receives;
//! - `recall "<subject>" --kind knowledge --limit 3`: the search without the hook's floor;
//! - plain BM25, top 3: a twenty-line BM25 (k1 1.2, b 0.75, lower-cased `\w+` words, no
//!   stop words) over the same records' text (title and claim), written here;
//! - the 3 most recent records.
//!
//! The targets (docs/RECALL.md): `hook prompt`'s hit@3 at least 1.1 × the better of the two
//! baselines, its precision at least 1.2 × BM25's, and at least 90 % of off-topic prompts
//! silent.
//!
//! ```text
//! MAJORDOMUS_RELEVANCE_REPOS="just=/work/.mirror/casey+just/repo,httpx=/work/.mirror/encode+httpx/repo,zod=/work/.mirror/colinhacks+zod/repo" \
//!   cargo bench -j2 --bench prompt_relevance
//! MAJORDOMUS_RELEVANCE_PROMPTS=60     # prompts per history (default 60)
//! MAJORDOMUS_RELEVANCE_HELD_OUT=0.2   # the newest fifth of the commits give the prompts
//! MAJORDOMUS_RELEVANCE_HUB=0.05       # a file more than this share of commits touched is a hub
//! MAJORDOMUS_BENCH_BIN=/path/to/majordomus   # another binary (a before/after comparison)
//! MAJORDOMUS_RELEVANCE_KEEP=1         # keep the stores
//! MAJORDOMUS_RELEVANCE_SHOW=1         # print each prompt and what each way showed
//! ```
//!
//! The repositories are given as `name=path` pairs (a path git can clone: a bare mirror or
//! a work tree), at least two (the off-topic prompts of each come from the next one).
#![forbid(unsafe_code)]

#[path = "common/history.rs"]
mod history;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use history::{BenchResult, Commit, git};

fn bench_bin() -> PathBuf {
    std::env::var_os("MAJORDOMUS_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_majordomus")))
}

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One history: its store, its records, the prompts it gives.
struct Store {
    name: String,
    root: PathBuf,
    /// Record ids, oldest first, with the non-hub files their episode touched.
    records: Vec<(String, BTreeSet<String>)>,
    /// The answerable prompts: the subject and the relevant record ids.
    prompts: Vec<(String, BTreeSet<String>)>,
    hubs: usize,
    commits: usize,
    held_out: usize,
    answerable: usize,
}

/// The store of one history (see the module's docs).
fn build(name: &str, repo: &Path, dir: &Path, home: &Path) -> BenchResult<Store> {
    let held: f64 = env_or("MAJORDOMUS_RELEVANCE_HELD_OUT", 0.2);
    let hub_share: f64 = env_or("MAJORDOMUS_RELEVANCE_HUB", 0.05);
    let wanted: usize = env_or("MAJORDOMUS_RELEVANCE_PROMPTS", 60);
    let commits = history::history(repo)?;
    let split = ((commits.len() as f64) * (1.0 - held)) as usize;
    let (corpus, later) = commits.split_at(split);
    let last = corpus.last().ok_or("the history has no commits")?;
    let root = dir.join(name);
    let repo_arg = repo.to_string_lossy().into_owned();
    let root_arg = root.to_string_lossy().into_owned();
    git(
        dir,
        &[
            "clone",
            "-q",
            "--no-checkout",
            "--shared",
            &repo_arg,
            &root_arg,
        ],
    )?;
    git(&root, &["checkout", "-q", "-B", "main", &last.id])?;
    git(&root, &["remote", "remove", "origin"])?;
    run(&root, home, &["init"], None)?;
    let mut touched: HashMap<&str, usize> = HashMap::new();
    for c in corpus {
        for p in c.paths.iter().collect::<BTreeSet<_>>() {
            *touched.entry(p.as_str()).or_default() += 1;
        }
    }
    let hubs: BTreeSet<&str> = touched
        .into_iter()
        .filter(|(_, n)| *n as f64 > hub_share * corpus.len() as f64)
        .map(|(p, _)| p)
        .collect();
    let records: Vec<(String, BTreeSet<String>)> = history::write_records(&root, corpus)?
        .into_iter()
        .map(|(id, files)| {
            let files = files
                .into_iter()
                .filter(|f| !hubs.contains(f.as_str()))
                .collect();
            (id, files)
        })
        .collect();
    // The first read builds the index.
    run(&root, home, &["recall", "index", "--limit", "1"], None)?;
    let by_file = history::by_file(&records);
    let answerable: Vec<(String, BTreeSet<String>)> = later
        .iter()
        .filter_map(|c: &Commit| {
            let relevant: BTreeSet<String> = c
                .paths
                .iter()
                .filter(|p| !hubs.contains(p.as_str()))
                .filter_map(|p| by_file.get(p.as_str()))
                .flatten()
                .map(|id| (*id).to_owned())
                .collect();
            (!relevant.is_empty()).then(|| (c.subject.clone(), relevant))
        })
        .collect();
    let n = wanted.min(answerable.len());
    let prompts = (0..n)
        .map(|i| answerable[i * answerable.len() / n.max(1)].clone())
        .collect();
    Ok(Store {
        name: name.to_owned(),
        root,
        records,
        prompts,
        hubs: hubs.len(),
        commits: commits.len(),
        held_out: later.len(),
        answerable: answerable.len(),
    })
}

/// Runs majordomus in `root` with `stdin`; its stdout.
fn run(root: &Path, home: &Path, args: &[&str], stdin: Option<&[u8]>) -> BenchResult<Vec<u8>> {
    let mut child = Command::new(bench_bin())
        .args(args)
        .current_dir(root)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("MAJORDOMUS_TIMING")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(bytes) = stdin
        && let Some(mut pipe) = child.stdin.take()
    {
        pipe.write_all(bytes)?;
    }
    drop(child.stdin.take());
    let out = child.wait_with_output()?;
    if !out.status.success() {
        return Err(format!(
            "majordomus {args:?} exited {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(out.stdout)
}

/// The records a hook's output puts before the model (`majordomus show <kind>:<id>` in
/// each line), in order, and the bytes of the context it hands the client.
fn injected(stdout: &[u8]) -> (Vec<String>, usize) {
    let out: serde_json::Value = serde_json::from_slice(stdout).unwrap_or_default();
    let Some(context) = out["hookSpecificOutput"]["additionalContext"].as_str() else {
        return (Vec::new(), 0);
    };
    let mut ids = Vec::new();
    for line in context.lines() {
        if let Some((_, rest)) = line.split_once("majordomus show ")
            && let Some((_, id)) = rest.split_once(':')
        {
            let id: String = id
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    (ids, context.len())
}

/// `hook prompt` for `prompt` in a fresh episode, as Claude Code calls the hooks: the
/// records it put before the model, and the bytes it handed the client.
fn hook_prompt(
    root: &Path,
    home: &Path,
    n: usize,
    prompt: &str,
) -> BenchResult<(Vec<String>, usize)> {
    let payload = |event: &str, more: serde_json::Value| -> Vec<u8> {
        let mut p = serde_json::json!({
            "session_id": format!("relevance-{n}"),
            "cwd": root,
            "hook_event_name": event,
        });
        if let (Some(all), serde_json::Value::Object(more)) = (p.as_object_mut(), more) {
            all.extend(more);
        }
        p.to_string().into_bytes()
    };
    let with = |hook: &'static str| ["hook", hook, "--provider", "claude-code"];
    run(
        root,
        home,
        &with("session-start"),
        Some(&payload(
            "SessionStart",
            serde_json::json!({"source": "startup"}),
        )),
    )?;
    let out = run(
        root,
        home,
        &with("prompt"),
        Some(&payload(
            "UserPromptSubmit",
            serde_json::json!({ "prompt": prompt }),
        )),
    )?;
    run(
        root,
        home,
        &with("session-end"),
        Some(&payload(
            "SessionEnd",
            serde_json::json!({"reason": "exit"}),
        )),
    )?;
    Ok(injected(&out))
}

/// `recall "<prompt>" --kind knowledge --limit 3`: the search, without the hook's floor.
fn recall_top3(root: &Path, home: &Path, prompt: &str) -> BenchResult<Vec<String>> {
    let out = run(
        root,
        home,
        &[
            "recall",
            "--kind",
            "knowledge",
            "--limit",
            "3",
            "--format",
            "json",
            "--",
            prompt,
        ],
        None,
    )?;
    let value: serde_json::Value = serde_json::from_slice(&out)?;
    Ok(value["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["id"].as_str().map(str::to_owned))
        .collect())
}

/// Plain BM25 over the records' text (title and claim: the subject twice), lower-cased
/// `\w+` words, no stop words: the baseline a reader of twenty lines would write.
struct Bm25 {
    postings: HashMap<String, Vec<(usize, f64)>>,
    lens: Vec<f64>,
    avg: f64,
}

impl Bm25 {
    fn words(text: &str) -> Vec<String> {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    fn new(texts: &[String]) -> Bm25 {
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        let mut lens = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let words = Bm25::words(text);
            lens.push(words.len() as f64);
            let mut tf: BTreeMap<String, f64> = BTreeMap::new();
            for w in words {
                *tf.entry(w).or_default() += 1.0;
            }
            for (w, n) in tf {
                postings.entry(w).or_default().push((i, n));
            }
        }
        let avg = lens.iter().sum::<f64>() / lens.len().max(1) as f64;
        Bm25 {
            postings,
            lens,
            avg,
        }
    }

    /// The best `k` documents for `query` with their scores, best first (ties to the newer).
    fn scored(&self, query: &str, k: usize) -> Vec<(usize, f64)> {
        let n = self.lens.len() as f64;
        let mut scores: HashMap<usize, f64> = HashMap::new();
        let words: BTreeSet<String> = Bm25::words(query).into_iter().collect();
        for w in &words {
            let Some(list) = self.postings.get(w) else {
                continue;
            };
            let df = list.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5)).ln().max(1e-6);
            for &(doc, tf) in list {
                let norm = 1.2 * (1.0 - 0.75 + 0.75 * self.lens[doc] / self.avg);
                *scores.entry(doc).or_default() += idf * tf * 2.2 / (tf + norm);
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        ranked.truncate(k);
        ranked
    }
}

/// A prompt's plain BM25 top 3 with their scores, and the records relevant to it.
type Scored = (Vec<(usize, f64)>, BTreeSet<String>);

/// Plain BM25's top 3 with a floor on its best score, chosen with the answers in hand (an
/// oracle): the lowest floor under which at least `silent` of the off-topic prompts show
/// nothing. What BM25 finds when it is as silent as the hook — a floor only takes hits
/// away, so no floor lets a silent BM25 reach its unfloored hit@3.
fn floored(
    on: &[Scored],
    off: &[Vec<(usize, f64)>],
    silent: f64,
    ids: impl Fn(Vec<usize>) -> Vec<String>,
) -> (Score, f64) {
    let best = |rows: &[(usize, f64)]| rows.first().map_or(0.0, |&(_, s)| s);
    let mut floors: Vec<f64> = off.iter().map(|r| best(r)).collect();
    floors.push(0.0);
    floors.sort_by(f64::total_cmp);
    floors.dedup();
    let quiet = |floor: f64| {
        off.iter().filter(|r| best(r) < floor).count() as f64 / off.len().max(1) as f64
    };
    // The lowest floor that is silent enough: just above an off-topic best score.
    let floor = floors
        .iter()
        .map(|&f| f + 1e-9)
        .chain([0.0])
        .filter(|&f| quiet(f) + 1e-9 >= silent)
        .fold(f64::INFINITY, f64::min);
    let mut score = Score::default();
    for (rows, relevant) in on {
        let shown = if best(rows) >= floor {
            ids(rows.iter().map(|&(d, _)| d).collect())
        } else {
            Vec::new()
        };
        score.add(&shown, relevant);
    }
    for rows in off {
        let shown = if best(rows) >= floor {
            ids(rows.iter().map(|&(d, _)| d).collect())
        } else {
            Vec::new()
        };
        score.off(&shown);
    }
    (score, floor)
}

#[derive(Default, Clone)]
struct Score {
    prompts: usize,
    hit1: usize,
    hit3: usize,
    shown: usize,
    relevant_shown: usize,
    off_prompts: usize,
    off_silent: usize,
    most_bytes: usize,
}

impl Score {
    fn add(&mut self, shown: &[String], relevant: &BTreeSet<String>) {
        self.prompts += 1;
        if shown.first().is_some_and(|id| relevant.contains(id)) {
            self.hit1 += 1;
        }
        if shown.iter().take(3).any(|id| relevant.contains(id)) {
            self.hit3 += 1;
        }
        self.shown += shown.len();
        self.relevant_shown += shown.iter().filter(|id| relevant.contains(*id)).count();
    }

    fn off(&mut self, shown: &[String]) {
        self.off_prompts += 1;
        if shown.is_empty() {
            self.off_silent += 1;
        }
    }

    fn hit3(&self) -> f64 {
        self.hit3 as f64 / self.prompts.max(1) as f64
    }

    fn precision(&self) -> f64 {
        self.relevant_shown as f64 / self.shown.max(1) as f64
    }

    fn silent(&self) -> f64 {
        self.off_silent as f64 / self.off_prompts.max(1) as f64
    }

    fn row(&self, what: &str) -> String {
        let n = self.prompts.max(1) as f64;
        format!(
            "| {what} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} % |",
            self.hit1 as f64 / n,
            self.hit3(),
            self.precision(),
            self.shown as f64 / n,
            100.0 * self.silent(),
        )
    }
}

fn main() -> BenchResult<()> {
    let Some(spec) = std::env::var_os("MAJORDOMUS_RELEVANCE_REPOS") else {
        eprintln!(
            "prompt_relevance: set MAJORDOMUS_RELEVANCE_REPOS to name=path pairs of at least two real repositories, e.g.\n  MAJORDOMUS_RELEVANCE_REPOS=\"just=/work/.mirror/casey+just/repo,httpx=/work/.mirror/encode+httpx/repo,zod=/work/.mirror/colinhacks+zod/repo\" cargo bench --bench prompt_relevance"
        );
        return Ok(());
    };
    let repos: Vec<(String, PathBuf)> = spec
        .to_string_lossy()
        .split(',')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, path)| (name.trim().to_owned(), PathBuf::from(path.trim())))
        .collect();
    if repos.len() < 2 {
        return Err("MAJORDOMUS_RELEVANCE_REPOS needs at least two name=path pairs".into());
    }
    let show = std::env::var_os("MAJORDOMUS_RELEVANCE_SHOW").is_some();
    let dir = tempfile::Builder::new()
        .prefix("majordomus-relevance-")
        .tempdir()?;
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home)?;
    let mut stores = Vec::new();
    for (name, repo) in &repos {
        let started = Instant::now();
        let store = build(name, repo, dir.path(), &home)?;
        eprintln!(
            "{name}: {} commits ({} with at most {} files), {} records, {} held out ({} answerable), {} hub files; store and index in {:.1} s",
            git(repo, &["rev-list", "--count", "HEAD"])?.trim(),
            store.commits,
            history::MAX_FILES,
            store.records.len(),
            store.held_out,
            store.answerable,
            store.hubs,
            started.elapsed().as_secs_f64()
        );
        stores.push(store);
    }
    let mut summary = Vec::new();
    for (i, store) in stores.iter().enumerate() {
        let other = &stores[(i + 1) % stores.len()];
        let texts: Vec<String> = store
            .records
            .iter()
            .map(|(id, _)| record_text(&store.root, id))
            .collect::<BenchResult<_>>()?;
        let bm25 = Bm25::new(&texts);
        let newest: Vec<String> = store
            .records
            .iter()
            .rev()
            .take(3)
            .map(|(id, _)| id.clone())
            .collect();
        let ids = |docs: Vec<usize>| -> Vec<String> {
            docs.into_iter()
                .map(|d| store.records[d].0.clone())
                .collect()
        };
        let (mut hook, mut search, mut plain, mut recent) = (
            Score::default(),
            Score::default(),
            Score::default(),
            Score::default(),
        );
        let started = Instant::now();
        let (mut on_scored, mut off_scored) = (Vec::new(), Vec::new());
        for (n, (prompt, relevant)) in store.prompts.iter().enumerate() {
            let (shown, bytes) = hook_prompt(&store.root, &home, n, prompt)?;
            hook.most_bytes = hook.most_bytes.max(bytes);
            hook.add(&shown, relevant);
            let top3 = recall_top3(&store.root, &home, prompt)?;
            search.add(&top3, relevant);
            let scored = bm25.scored(prompt, 3);
            let base = ids(scored.iter().map(|&(d, _)| d).collect());
            on_scored.push((scored, relevant.clone()));
            plain.add(&base, relevant);
            recent.add(&newest, relevant);
            if show {
                let mark = |list: &[String]| -> String {
                    list.iter()
                        .map(|id| if relevant.contains(id) { "+" } else { "-" })
                        .collect()
                };
                println!(
                    "{} | {prompt} | hook {} | recall {} | bm25 {}",
                    store.name,
                    mark(&shown),
                    mark(&top3),
                    mark(&base)
                );
            }
        }
        for (n, (prompt, _)) in other.prompts.iter().enumerate() {
            let (shown, bytes) = hook_prompt(&store.root, &home, 10_000 + n, prompt)?;
            hook.most_bytes = hook.most_bytes.max(bytes);
            hook.off(&shown);
            if show && !shown.is_empty() {
                println!(
                    "{} | off-topic: {prompt} | hook showed {}",
                    store.name,
                    shown.len()
                );
            }
            search.off(&recall_top3(&store.root, &home, prompt)?);
            let scored = bm25.scored(prompt, 3);
            plain.off(&ids(scored.iter().map(|&(d, _)| d).collect()));
            off_scored.push(scored);
            recent.off(&newest);
        }
        let (as_silent, _) = floored(&on_scored, &off_scored, hook.silent(), ids);
        let (ninety, _) = floored(&on_scored, &off_scored, 0.9, ids);
        println!(
            "\n### {} ({} records; {} prompts of its newer commits, {} off-topic prompts of {}; {:.0} s)\n",
            store.name,
            store.records.len(),
            store.prompts.len(),
            other.prompts.len(),
            other.name,
            started.elapsed().as_secs_f64()
        );
        println!(
            "| records shown by | hit@1 | hit@3 | precision | shown per prompt | off-topic prompts silent |"
        );
        println!("| --- | ---: | ---: | ---: | ---: | ---: |");
        println!("{}", hook.row("`hook prompt` (what the model receives)"));
        println!(
            "{}",
            search.row("`recall --kind knowledge --limit 3` (no floor)")
        );
        println!("{}", plain.row("plain BM25, top 3"));
        println!(
            "{}",
            as_silent.row("plain BM25, top 3, floored as silent as the hook (an oracle floor)")
        );
        println!(
            "{}",
            ninety.row("plain BM25, top 3, floored to 90 % silent (an oracle floor)")
        );
        println!("{}", recent.row("the 3 most recent records"));
        println!(
            "\nlargest context `hook prompt` handed the client: {} bytes",
            hook.most_bytes
        );
        summary.push((store.name.clone(), hook, plain, recent, as_silent));
    }
    println!("\n### Against the targets\n");
    println!(
        "| history | hit@3: hook / target (1.1 × the better baseline) | precision: hook / target (1.2 × BM25) | off-topic silent: hook / target 90 % | hit@3: hook / BM25 as silent |"
    );
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, hook, plain, recent, as_silent) in &summary {
        let hit_target = 1.1 * plain.hit3().max(recent.hit3());
        let precision_target = 1.2 * plain.precision();
        let mark = |ok: bool| if ok { "met" } else { "**not met**" };
        println!(
            "| {name} | {:.2} / {:.2} {} | {:.2} / {:.2} {} | {:.0} % {} | {:.2} / {:.2} |",
            hook.hit3(),
            hit_target,
            mark(hook.hit3() + 1e-9 >= hit_target),
            hook.precision(),
            precision_target,
            mark(hook.precision() + 1e-9 >= precision_target),
            100.0 * hook.silent(),
            mark(hook.silent() + 1e-9 >= 0.9),
            hook.hit3(),
            as_silent.hit3(),
        );
    }
    if std::env::var_os("MAJORDOMUS_RELEVANCE_KEEP").is_some() {
        eprintln!("kept {}", dir.keep().display());
    }
    Ok(())
}

/// A record's text as a reader would index it: its title and its claim.
fn record_text(root: &Path, id: &str) -> BenchResult<String> {
    let text = std::fs::read_to_string(root.join(format!(".ai/repo/knowledge/curated/{id}.md")))?;
    let title = text
        .lines()
        .find_map(|l| l.strip_prefix("title: "))
        .unwrap_or("")
        .trim_matches('"')
        .to_owned();
    let body = text.splitn(3, "---").nth(2).unwrap_or("").trim().to_owned();
    Ok(format!("{title}\n{body}"))
}
