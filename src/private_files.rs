//! Private files: a 0700 directory, 0600 files, and atomic replacement (temp file in the same
//! directory, fsync, rename, fsync the directory) so a crash never leaves half a file. Keys,
//! nonces, the audit log and exported typed data all go through here.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

const DIR_MODE: u32 = 0o700;
const FILE_MODE: u32 = 0o600;
/// Marks temporary files; `clear` sweeps any a crash left behind.
pub const TEMP_MARK: &str = ".tmp-";

/// An I/O error that says what was being done to which path.
pub fn io_error(action: &str, path: &Path, err: &io::Error) -> io::Error {
    io::Error::new(
        err.kind(),
        format!("cannot {action} {}: {err}", path.display()),
    )
}

/// Create `dir` (and missing parents) as 0700, and tighten it if it already existed looser.
pub fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder
        .create(dir)
        .map_err(|e| io_error("create", dir, &e))?;
    set_mode(dir, DIR_MODE).map_err(|e| io_error("restrict", dir, &e))
}

/// A temporary name next to `name`, unique enough for concurrent writers.
pub fn temp_name(name: &str) -> String {
    format!(".{name}{TEMP_MARK}{:016x}", rand::random::<u64>())
}

/// Atomically replace `dir/name` with `bytes`, mode 0600.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let temp = temp_name(name);
    let written = write_new_private(&dir.join(&temp), bytes);
    match written {
        Ok(()) => publish(dir, &temp, name),
        Err(err) => {
            discard(dir, &temp);
            Err(err)
        }
    }
}

fn write_new_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    let mut file = options
        .open(path)
        .map_err(|e| io_error("create", path, &e))?;
    file.write_all(bytes)
        .map_err(|e| io_error("write", path, &e))
}

/// Make the already written `dir/temp` private and durable, then rename it over `dir/name`.
/// Used for files another crate wrote (the keystore) as well as our own. Removes `temp` on
/// failure.
pub fn publish(dir: &Path, temp: &str, name: &str) -> io::Result<()> {
    let result = seal_and_rename(dir, temp, name);
    if result.is_err() {
        discard(dir, temp);
    }
    result
}

fn seal_and_rename(dir: &Path, temp: &str, name: &str) -> io::Result<()> {
    let temp_path = dir.join(temp);
    let final_path = dir.join(name);
    set_mode(&temp_path, FILE_MODE).map_err(|e| io_error("restrict", &temp_path, &e))?;
    File::open(&temp_path)
        .and_then(|f| f.sync_all())
        .map_err(|e| io_error("sync", &temp_path, &e))?;
    fs::rename(&temp_path, &final_path).map_err(|e| io_error("replace", &final_path, &e))?;
    sync_dir(dir)
}

/// Best-effort removal of a temporary file after a failed write; the original error matters.
pub fn discard(dir: &Path, temp: &str) {
    let _ = fs::remove_file(dir.join(temp));
}

/// The rename is durable only once the directory entry is on disk.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_error("sync", dir, &e))
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// The file's bytes, or `None` if it does not exist.
pub fn read_optional(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error("read", path, &e)),
    }
}

pub fn exists(path: &Path) -> io::Result<bool> {
    path.try_exists().map_err(|e| io_error("check", path, &e))
}

/// Remove the file; `false` if there was none.
pub fn remove_if_present(path: &Path) -> io::Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error("remove", path, &e)),
    }
}

/// Remove temporary files a crashed write of `dir/<name>` left behind (they may hold an
/// encrypted key). A missing directory has none.
pub fn sweep_temps(dir: &Path, name: &str) -> io::Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error("list", dir, &e)),
    };
    let prefix = format!(".{name}{TEMP_MARK}");
    for entry in entries {
        let entry = entry.map_err(|e| io_error("list", dir, &e))?;
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            remove_if_present(&entry.path())?;
        }
    }
    Ok(())
}

/// Atomically write `path` mode 0600. The directory is the user's own choice: it is created if
/// missing but its mode is left alone (never tighten /tmp or a shared folder).
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} names no file", path.display()),
            )
        })?
        .to_string_lossy()
        .into_owned();
    fs::create_dir_all(dir).map_err(|e| io_error("create", dir, &e))?;
    write_atomic(dir, &name, bytes)
}

/// Open `path` for appending, creating it 0600 (the audit log).
pub fn open_private_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options.open(path).map_err(|e| io_error("open", path, &e))
}

/// Create `path` exclusively, 0600; `AlreadyExists` when it is there (lock files).
pub fn create_new_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_user_named_file_is_private_but_its_folder_is_left_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared");
        fs::create_dir(&shared).unwrap();
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o755)).unwrap();
        write_private(&shared.join("typed.json"), b"{}").unwrap();
        assert_eq!(
            fs::metadata(&shared).unwrap().permissions().mode() & 0o777,
            0o755
        );
        assert_eq!(
            fs::metadata(shared.join("typed.json"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
        assert_eq!(fs::read(shared.join("typed.json")).unwrap(), b"{}");
    }
}
