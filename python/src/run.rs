//! `_run`: an experiment config or a study run as `solvedgym run` runs it, on the library's study
//! thread ([`Study`]), with progress and Ctrl-C.

use super::*;

use solvedgym::front::study::{Study, StudyConfig, StudyError, StudySettings, error_text};

/// What `_run` calls a config given as a dict, in its errors and its stored runs.
pub(crate) const DICT_CONFIG: &str = "<dict config>";

/// `solvedgym.run`'s engine: the config (a path, or a dict turned into TOML here so that its
/// errors name its keys) run as `solvedgym run` runs it, into `out`, with `progress` drawing the
/// command line's bar on stderr. The study runs on a thread of its own while this one checks
/// for Ctrl-C (KeyboardInterrupt stops it: the runs stored so far are kept) and calls
/// `observer(done, total)` (episodes) at most every 100 ms. Returns one dict per game:
/// `name`, `dir` and `written` (the files).
#[pyfunction]
#[pyo3(signature = (config, out, fresh = false, csv = false, progress = false, observer = None))]
pub(crate) fn _run<'py>(
    py: Python<'py>,
    config: &Bound<'py, PyAny>,
    out: std::path::PathBuf,
    fresh: bool,
    csv: bool,
    progress: bool,
    observer: Option<Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let mut conversion = Conversion::default();
    let config = match config.cast::<PyDict>() {
        Ok(dict) => {
            let (table, converted) = to_table(dict)?;
            conversion = converted;
            let text = toml::to_string(&table).map_err(|e| {
                PyValueError::new_err(format!(
                    "the config dict as TOML: {}",
                    plain_words(&e.to_string())
                ))
            })?;
            StudyConfig::Text {
                name: std::path::PathBuf::from(DICT_CONFIG),
                text,
            }
        }
        Err(_) => StudyConfig::File(config.extract::<std::path::PathBuf>().map_err(|_| {
            PyTypeError::new_err("config: a path to a TOML config (str or os.PathLike) or a dict")
        })?),
    };
    let settings = StudySettings {
        fresh,
        csv,
        progress,
    };
    let mut study = Study::start(config, &out, settings);

    // This thread waits with the GIL released, waking to check for Ctrl-C and to report.
    let mut failure: Option<PyErr> = None;
    let mut told = (u64::MAX, u64::MAX);
    loop {
        let (waited, ended) = py.detach(move || {
            let mut study = study;
            let ended = study.wait(std::time::Duration::from_millis(100));
            (study, ended)
        });
        study = waited;
        if failure.is_none() {
            let now = study.progress();
            let reported = match (&observer, now != told) {
                (Some(f), true) => f.call1(now).map(drop),
                _ => Ok(()),
            };
            told = now;
            if let Err(e) = reported.and_then(|()| py.check_signals()) {
                study.stop();
                failure = Some(e);
            }
        }
        if ended {
            break;
        }
    }
    let finished = py.detach(move || study.finish());
    if let Some(e) = failure {
        return Err(e);
    }
    let games = match finished {
        Ok(games) => games,
        Err(StudyError::Shard) => {
            return Err(PyValueError::new_err(
                "a shard was run: no outputs were written",
            ));
        }
        Err(StudyError::Failed(e)) => {
            let message = conversion.quiet(plain_words(&error_text(&e, QUOTED)));
            return Err(match e.downcast_ref::<std::io::Error>() {
                Some(io) if io.kind() == std::io::ErrorKind::NotFound => {
                    pyo3::exceptions::PyFileNotFoundError::new_err(message)
                }
                _ => PyValueError::new_err(message),
            });
        }
        Err(StudyError::Panicked) => {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "the study stopped on an internal error (a panic); please report it",
            ));
        }
    };
    let mut out = Vec::with_capacity(games.len());
    for g in &games {
        let d = PyDict::new(py);
        d.set_item("name", &g.name)?;
        d.set_item("dir", &g.dir)?;
        d.set_item("written", g.written.clone())?;
        out.push(d);
    }
    Ok(out)
}
