//! Writing result files: every file is written to a temporary name in the same folder
//! and renamed into place, so an interrupted run never leaves a truncated file.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` atomically: a hidden temporary file in the same folder
/// (`.<name>.tmp-<pid>`), flushed to disk, then renamed over `path`. Creates the
/// folder if needed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = dir.join(format!(
        ".{}{TMP_MARK}{}",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    let mut f =
        std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_data())
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    drop(f);
    std::fs::rename(&tmp, path).with_context(|| format!("cannot rename to {}", path.display()))?;
    Ok(())
}

/// What marks a temporary file of [`write_atomic`]: `.<name>.tmp-<pid>`.
pub const TMP_MARK: &str = ".tmp-";

/// Remove the temporary files that killed runs left in `dir` (not recursive). Call it
/// only while holding the folder's lock, so no live writer's file is removed.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in rd.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.')
            && name.contains(TMP_MARK)
            && std::fs::remove_file(e.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}
