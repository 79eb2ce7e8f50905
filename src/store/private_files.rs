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

/// Make sure the data directory the user named is usable, creating it 0700 if it is missing.
/// An existing directory's mode is never changed: it may be /tmp or a shared folder, and
/// tightening it would lock other users out. It is refused when it is world-writable without
/// the sticky bit, because then anyone could rename our subdirectories away and put their own
/// files in their place; a sticky world-writable directory such as /tmp is fine, since there
/// only an entry's owner can rename or remove it.
pub fn ensure_data_dir(dir: &Path) -> io::Result<()> {
    let dir = non_empty(dir);
    match fs::metadata(dir) {
        Ok(meta) => check_data_dir(dir, &meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => create_private_leaf(dir, true),
        Err(e) => Err(io_error("check", dir, &e)),
    }
}

/// Create `dir`, one of the app's own subdirectories (`keys/`, `nonces/`, `logs/`, `demo/`…),
/// as 0700, after checking its parent with [`ensure_data_dir`]. An existing one must be a real
/// directory (not a symlink) owned by us, else it is refused: in a shared parent it may have
/// been planted by someone else. Ours but too open, it is tightened to 0700.
pub fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    let parent = dir
        .parent()
        .map(non_empty)
        .ok_or_else(|| invalid(format!("{} has no parent directory", dir.display())))?;
    ensure_data_dir(parent)?;
    create_private_leaf(dir, false)?;
    let meta = fs::symlink_metadata(dir).map_err(|e| io_error("check", dir, &e))?;
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(invalid(format!(
            "{} is not a directory of ours (a symlink or a file); remove it and try again",
            dir.display()
        )));
    }
    check_owner(dir, &meta)?;
    if mode_of(&meta) & 0o777 != DIR_MODE {
        set_mode(dir, DIR_MODE).map_err(|e| io_error("restrict", dir, &e))?;
    }
    Ok(())
}

/// `mkdir dir` with mode 0700; an existing entry is left for the caller to check. With
/// `parents`, missing parents are created with the default mode: only the leaf is ours.
fn create_private_leaf(dir: &Path, parents: bool) -> io::Result<()> {
    if parents && let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| io_error("create", parent, &e))?;
    }
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    match builder.create(dir) {
        Ok(()) => Ok(()),
        // Another process may have created it a moment ago: the checks that follow decide.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io_error("create", dir, &e)),
    }
}

fn check_data_dir(dir: &Path, meta: &fs::Metadata) -> io::Result<()> {
    if !meta.is_dir() {
        return Err(invalid(format!(
            "data dir {} is not a directory",
            dir.display()
        )));
    }
    let mode = mode_of(meta);
    if mode & 0o002 != 0 && mode & 0o1000 == 0 {
        return Err(invalid(format!(
            "data dir {} is writable by every user and has no sticky bit, so anyone could swap \
             the key, nonce and audit files in it; use a private directory (or `chmod o-w` or \
             `chmod +t` it)",
            dir.display()
        )));
    }
    Ok(())
}

/// Refuse an entry another user owns (a planted directory or file).
#[cfg(unix)]
fn check_owner(path: &Path, meta: &fs::Metadata) -> io::Result<()> {
    owned_by(path, meta, rustix::process::geteuid().as_raw())
}

#[cfg(unix)]
fn owned_by(path: &Path, meta: &fs::Metadata, me: u32) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    if meta.uid() != me {
        return Err(invalid(format!(
            "{} belongs to user id {}, not to us ({me}); remove it or choose another data dir",
            path.display(),
            meta.uid()
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_owner(_path: &Path, _meta: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn mode_of(meta: &fs::Metadata) -> u32 {
    std::os::unix::fs::PermissionsExt::mode(&meta.permissions())
}

#[cfg(not(unix))]
fn mode_of(_meta: &fs::Metadata) -> u32 {
    DIR_MODE
}

/// `Path::parent` of a bare name is "", which the file system calls nothing; it means ".".
fn non_empty(dir: &Path) -> &Path {
    if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, message)
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

/// The whole of a small file the user names (a keystore): a regular file of at most `max`
/// bytes, else refused before more than `max + 1` bytes are read. It is opened without
/// blocking and checked through the open handle, so a FIFO cannot hang the read, and a device
/// (`/dev/zero`) or a file growing as it is read cannot fill memory.
pub fn read_small(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        rustix::fs::OFlags::NONBLOCK.bits() as i32,
    );
    let file = options.open(path).map_err(|e| io_error("read", path, &e))?;
    let meta = file.metadata().map_err(|e| io_error("check", path, &e))?;
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is larger than {max} bytes: not a keystore, nothing was read",
                path.display()
            ),
        )
    };
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is not a regular file (a directory, device, FIFO or socket): nothing was read",
                path.display()
            ),
        ));
    }
    if meta.len() > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error("read", path, &e))?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
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

/// The directory a user-named file goes in ("." for a bare name).
fn parent_of(path: &Path) -> &Path {
    path.parent().map(non_empty).unwrap_or(Path::new("."))
}

/// Atomically write `path` mode 0600. The directory is the user's own choice: it is created if
/// missing but its mode is left alone (never tighten /tmp or a shared folder).
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_of(path);
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

/// Write a new file at exactly `path`, mode 0600, only if nothing is there: an existing file,
/// directory or symlink (even a dangling one) is never replaced or followed (`AlreadyExists`).
/// For a file that must never overwrite another, such as a new owner keystore. Missing parent
/// directories are created 0700; existing ones keep their mode, as in [`write_private`].
///
/// Exclusive creation in place rather than a rename: a rename would replace a file that
/// appeared meanwhile. On any error after the file was created it is removed again, so a
/// failure leaves nothing at `path`; only a crash in the middle of the write could.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_of(path);
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder
        .create(dir)
        .map_err(|e| io_error("create", dir, &e))?;
    let mut file = create_new_private(path).map_err(|e| io_error("create", path, &e))?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| io_error("write", path, &e))
        .and_then(|()| sync_dir(dir));
    if written.is_err() {
        let _ = fs::remove_file(path);
    }
    written
}

/// Open `path` for appending, creating it 0600 (the audit log, which sits directly in the data
/// dir, possibly a shared one). A symlink is not followed and a file someone else owns is
/// refused, so nobody can point our appends at a file of their choosing; ours but too open,
/// it is tightened to 0600.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(FILE_MODE);
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    let file = options.open(path).map_err(|e| io_error("open", path, &e))?;
    let meta = file.metadata().map_err(|e| io_error("check", path, &e))?;
    if !meta.is_file() {
        return Err(invalid(format!("{} is not a regular file", path.display())));
    }
    check_owner(path, &meta)?;
    #[cfg(unix)]
    if mode_of(&meta) & 0o777 != FILE_MODE {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(FILE_MODE))
            .map_err(|e| io_error("restrict", path, &e))?;
    }
    Ok(file)
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

    /// `--owner-keystore /dev/zero` grew to gigabytes and a FIFO blocked forever (issue 20).
    #[test]
    fn small_reads_take_regular_files_within_the_cap_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("k.json");
        fs::write(&file, b"12345").unwrap();
        assert_eq!(read_small(&file, 5).unwrap(), b"12345");
        let e = read_small(&file, 4).unwrap_err();
        assert!(e.to_string().contains("larger than 4 bytes"), "{e}");
        let e = read_small(dir.path(), 4096).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        #[cfg(unix)]
        {
            let e = read_small(Path::new("/dev/zero"), 4096).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
            let fifo = dir.path().join("fifo");
            rustix::fs::mknodat(
                rustix::fs::CWD,
                &fifo,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_raw_mode(0o600),
                0,
            )
            .unwrap();
            // No writer: a blocking open would never return.
            let e = read_small(&fifo, 4096).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
        assert_eq!(
            read_small(&dir.path().join("missing"), 1)
                .unwrap_err()
                .kind(),
            io::ErrorKind::NotFound
        );
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[cfg(unix)]
    fn dir_with_mode(parent: &Path, name: &str, mode: u32) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let dir = parent.join(name);
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(mode)).unwrap();
        dir
    }

    #[cfg(unix)]
    #[test]
    fn a_handed_in_data_dir_keeps_its_mode_and_our_subdirs_are_private() {
        let root = tempfile::tempdir().unwrap();
        let data = dir_with_mode(root.path(), "data", 0o755);
        ensure_private_dir(&data.join("keys")).unwrap();
        ensure_data_dir(&data).unwrap();
        assert_eq!(mode(&data), 0o755);
        assert_eq!(mode(&data.join("keys")), 0o700);
        // A data dir we create ourselves is private.
        let fresh = root.path().join("a/b/data");
        ensure_private_dir(&fresh.join("nonces")).unwrap();
        assert_eq!(mode(&fresh), 0o700);
        assert_eq!(mode(&fresh.join("nonces")), 0o700);
    }

    #[cfg(unix)]
    #[test]
    fn a_world_writable_data_dir_needs_the_sticky_bit() {
        let root = tempfile::tempdir().unwrap();
        let open = dir_with_mode(root.path(), "open", 0o777);
        let err = ensure_private_dir(&open.join("keys")).unwrap_err();
        assert!(err.to_string().contains("no sticky bit"), "{err}");
        assert!(!open.join("keys").exists(), "nothing is created in it");
        assert!(ensure_data_dir(&open).is_err());
        assert_eq!(mode(&open), 0o777);

        let sticky = dir_with_mode(root.path(), "tmp", 0o1777);
        ensure_private_dir(&sticky.join("keys")).unwrap();
        assert_eq!(mode(&sticky), 0o1777);
        assert_eq!(mode(&sticky.join("keys")), 0o700);
    }

    #[cfg(unix)]
    #[test]
    fn planted_subdirectories_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let sticky = dir_with_mode(root.path(), "tmp", 0o1777);
        let elsewhere = dir_with_mode(root.path(), "elsewhere", 0o755);
        std::os::unix::fs::symlink(&elsewhere, sticky.join("keys")).unwrap();
        let err = ensure_private_dir(&sticky.join("keys")).unwrap_err();
        assert!(err.to_string().contains("symlink"), "{err}");
        assert_eq!(mode(&elsewhere), 0o755, "the link's target is not touched");
        fs::write(sticky.join("nonces"), b"").unwrap();
        assert!(ensure_private_dir(&sticky.join("nonces")).is_err());
        // Another user's directory (we cannot chown without root, so ask as someone else).
        let ours = sticky.join("logs");
        ensure_private_dir(&ours).unwrap();
        let meta = fs::symlink_metadata(&ours).unwrap();
        let uid = std::os::unix::fs::MetadataExt::uid(&meta);
        assert!(owned_by(&ours, &meta, uid).is_ok());
        let err = owned_by(&ours, &meta, uid.wrapping_add(1)).unwrap_err();
        assert!(err.to_string().contains("belongs to user id"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn the_append_log_is_private_and_never_followed_through_a_symlink() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let log = root.path().join("audit.jsonl");
        fs::write(&log, b"").unwrap();
        fs::set_permissions(&log, fs::Permissions::from_mode(0o644)).unwrap();
        open_private_append(&log).unwrap();
        assert_eq!(mode(&log), 0o600);
        let fresh = root.path().join("new.jsonl");
        open_private_append(&fresh).unwrap();
        assert_eq!(mode(&fresh), 0o600);

        let target = root.path().join("victim");
        fs::write(&target, b"theirs").unwrap();
        let link = root.path().join("linked.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(open_private_append(&link).is_err());
        assert_eq!(fs::read(&target).unwrap(), b"theirs");
    }

    #[cfg(unix)]
    #[test]
    fn a_user_named_file_is_private_but_its_folder_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir_with_mode(dir.path(), "shared", 0o755);
        write_private(&shared.join("typed.json"), b"{}").unwrap();
        assert_eq!(mode(&shared), 0o755);
        assert_eq!(mode(&shared.join("typed.json")), 0o600);
        assert_eq!(fs::read(shared.join("typed.json")).unwrap(), b"{}");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_replaces_nothing_and_its_missing_folders_are_private() {
        let root = tempfile::tempdir().unwrap();
        let shared = dir_with_mode(root.path(), "shared", 0o755);
        let path = shared.join("a/b/owner.json");
        write_new(&path, b"first").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"first");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&shared.join("a")), 0o700);
        assert_eq!(mode(&shared.join("a/b")), 0o700);
        assert_eq!(mode(&shared), 0o755, "an existing folder keeps its mode");

        let err = write_new(&path, b"second").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
        assert_eq!(fs::read(&path).unwrap(), b"first", "the file is untouched");
        // A symlink, even one to nothing, is an entry: not followed, not replaced.
        let target = root.path().join("nothing-yet");
        let link = shared.join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = write_new(&link, b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
        assert!(!target.exists(), "nothing was written through the link");
        assert!(write_new(&shared.join("a"), b"x").is_err(), "a directory");
    }
}
