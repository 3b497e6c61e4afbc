//! Merging finished jobs (from one folder or from several shard folders) into the
//! tidy CSVs, the manifest and the plots.

use super::manifest::Manifest;
use super::parts::{Part, load_part};
use crate::output::write_atomic;
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Merge the parts found in `dirs` into `out`: tables, manifest and plots.
///
/// `manifest` describes the scenario (from the run that just finished, or read from a
/// shard folder); parts whose fingerprint differs are stale when `skip_stale` (a
/// resumed run in the same folder), and an error otherwise (folders of different
/// scenario versions must not be mixed).
pub fn merge_into(
    dirs: &[PathBuf],
    out: &Path,
    mut manifest: Manifest,
    skip_stale: bool,
    plots: bool,
) -> Result<Vec<PathBuf>> {
    let mut parts: BTreeMap<usize, Part> = BTreeMap::new();
    let fp = manifest.fingerprint.clone();
    for d in dirs {
        let pdir = d.join("parts");
        let rd = std::fs::read_dir(&pdir).with_context(|| {
            format!(
                "{} has no parts/ folder: is it a results folder of mmvesim run or sweep?",
                d.display()
            )
        })?;
        let mut names: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        for p in names {
            let is_part = p.extension().and_then(|e| e.to_str()) == Some("json")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("job-"));
            if !is_part {
                continue;
            }
            let part = load_part(&p).with_context(|| format!("unreadable part {}", p.display()))?;
            if part.fingerprint != fp {
                if skip_stale {
                    continue; // a stale part from an older version of the scenario
                }
                bail!(
                    "{} belongs to a different scenario version (fingerprint {} vs {fp})",
                    p.display(),
                    part.fingerprint
                );
            }
            if part.experiment != manifest.experiment {
                bail!(
                    "{} is from experiment `{}`, not `{}`",
                    p.display(),
                    part.experiment,
                    manifest.experiment
                );
            }
            parts.insert(part.job, part);
        }
    }
    let jobs = manifest.jobs;
    let missing: Vec<usize> = (0..jobs).filter(|j| !parts.contains_key(j)).collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(10).map(|j| j.to_string()).collect();
        bail!(
            "{} of {jobs} jobs are missing (e.g. {}); run the remaining shards first",
            missing.len(),
            shown.join(", ")
        );
    }
    // Concatenate per table in job order.
    let mut tables: BTreeMap<String, (Vec<String>, Vec<u8>)> = BTreeMap::new();
    for part in parts.values() {
        for (name, (header, rows)) in &part.tables {
            let entry = tables
                .entry(name.clone())
                .or_insert_with(|| (header.clone(), Vec::new()));
            if entry.0 != *header {
                bail!("job {} has different columns for table {name}", part.job);
            }
            let mut w = csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(Vec::new());
            for r in rows {
                w.write_record(r)?;
            }
            entry
                .1
                .extend(w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?);
        }
    }
    let mut written = Vec::new();
    for (name, (header, body)) in &tables {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(header)?;
        let mut bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        bytes.extend_from_slice(body);
        let path = out.join(format!("{name}.csv"));
        write_atomic(&path, &bytes)?;
        written.push(path);
    }
    manifest.tables = tables.keys().cloned().collect();
    manifest.shard = None;
    written.push(manifest.write(out)?);
    if plots {
        written.extend(crate::plot::render_all(out, &manifest.plots)?);
    }
    Ok(written)
}
