#!/usr/bin/env python3
"""Extracts every ```swift block of the given Markdown files into OUT_DIR for check.sh:

- a block with `import PackageDescription` is a manifest: manifest-N.swift, type-checked alone
  against PackageDescription;
- a block right after a `<!-- snippet: skip REASON -->` line is skipped (and counted);
- every other block becomes the body of its own `async throws` function in snippets.swift (its
  `import` lines hoisted to the top), after Prelude.swift's stand-ins for the names a snippet
  takes as given (`url`, `pipeline`, `configuration`…). A block whose unindented lines declare an
  extension or a protocol is put at file scope instead, since those cannot be local.

`#sourceLocation` makes the compiler's messages point at the Markdown file and line.
Prints one line per block: "code|manifest|skip FILE:LINE [REASON]".
"""
import pathlib
import re
import sys

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
imports, bodies, manifests = set(), [], 0
for name in sys.argv[2:]:
    lines = pathlib.Path(name).read_text().splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = re.match(r"^(\s*)```swift\s*$", line)
        if not fence:
            index += 1
            continue
        indent, start = len(fence.group(1)), index + 1
        end = start
        while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        block = [l[indent:] if l[:indent].strip() == "" else l for l in lines[start:end]]
        previous = next((l for l in reversed(lines[:index]) if l.strip()), "")
        skip = re.match(r"^\s*<!--\s*snippet:\s*skip\s*(.*?)\s*-->", previous)
        where = f"{name}:{start + 1}"
        if skip:
            print(f"skip {where} {skip.group(1)}")
        elif any(l.startswith("import PackageDescription") for l in block):
            manifests += 1
            text = f'#sourceLocation(file: "{name}", line: {start + 1})\n' + "\n".join(block) + "\n"
            (out / f"manifest-{manifests}.swift").write_text(text)
            print(f"manifest {where}")
        else:
            body = []
            for l in block:
                if re.match(r"^import \w+", l):
                    imports.add(l.strip())
                    body.append("")  # keeps the line numbers
                else:
                    body.append(l)
            at_file_scope = any(re.match(r"^(public |private )?(extension|protocol) ", l) for l in body)
            source = f'#sourceLocation(file: "{name}", line: {start + 1})\n' + "\n".join(body) + "\n#sourceLocation()\n"
            if not at_file_scope:
                source = f"func snippet{len(bodies)}() async throws {{\n{source}}}\n"
            bodies.append(source)
            print(f"code {where}")
        index = end + 1

prelude = (pathlib.Path(__file__).parent / "Prelude.swift").read_text()
(out / "Prelude.swift").write_text(prelude)
header = "".join(f"{i}\n" for i in sorted(imports | {"import Foundation", "import Imago"}))
(out / "snippets.swift").write_text(header + "\n" + "\n".join(bodies))
