"""Execute one notebook headless, then export it to HTML: scripts/notebooks.sh's worker.

    python notebook_run.py NOTEBOOK OUT_DIR HTML_DIR

Runs the notebook in its own folder (as `jupyter nbconvert --execute` does), writes the
executed copy to OUT_DIR and its HTML export to HTML_DIR, and prints how many figures the
executed copy embeds. Exits 1 if a cell fails or if no figure is embedded. One Python process
per notebook instead of three (`nbconvert --execute`, a count, `nbconvert --to html`): each
start of Jupyter's command line cost about a second of CPU.
"""

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbconvert import HTMLExporter


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    nb_path, out_dir, html_dir = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    nb = nbformat.read(nb_path, as_version=4)
    client = NotebookClient(
        nb, timeout=600, resources={"metadata": {"path": str(nb_path.parent.resolve())}}
    )
    failed = None
    try:
        client.execute()
    except CellExecutionError as e:
        failed = e
    nbformat.write(nb, out_dir / nb_path.name)
    if failed is not None:
        print(failed, file=sys.stderr)
        return 1
    images = sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    )
    html, _ = HTMLExporter().from_notebook_node(nb)
    (html_dir / nb_path.with_suffix(".html").name).write_text(html, encoding="utf-8")
    print(images)
    return 0 if images > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
