"""Checks .github/workflows/ci.yml, which cannot run here: it must parse as YAML and hold the
three jobs Rewind's platforms need (Linux `make test`; macOS with Homebrew's libwebsockets and
PostgreSQL (the tests' private cluster), `swift build` and `swift test`; `xcodebuild build` of
Rewind and RewindRecorder for the iOS Simulator in Swift 6 mode). Prints 'N passed, N failed' and exits non-zero on any failure."""
import sys

import yaml


def main(path):
    failures = []
    checks = 0

    def check(condition, what):
        nonlocal checks
        checks += 1
        if not condition:
            failures.append(what)

    try:
        with open(path, encoding="utf-8") as f:
            workflow = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as error:
        print(f"{path}: does not parse as YAML: {error}")
        print("0 passed, 1 failed")
        return 1

    check(isinstance(workflow, dict), "the workflow is not a mapping")
    workflow = workflow if isinstance(workflow, dict) else {}
    # PyYAML reads the bare key `on` as the boolean True (YAML 1.1).
    triggers = workflow.get("on", workflow.get(True))
    check(isinstance(triggers, dict) and "push" in triggers and "pull_request" in triggers,
          "the workflow does not run on push and pull_request")
    jobs = workflow.get("jobs") if isinstance(workflow.get("jobs"), dict) else {}
    check(set(jobs) >= {"linux", "macos", "ios"}, f"jobs are {sorted(jobs)}, not linux, macos and ios")

    def steps(name):
        job = jobs.get(name) or {}
        listed = job.get("steps") or []
        for index, step in enumerate(listed):
            check(isinstance(step, dict) and (("run" in step) != ("uses" in step)),
                  f"{name}: step {index + 1} has neither exactly one of run and uses")
        return [step.get("run", "") for step in listed if isinstance(step, dict)], job

    runs, job = steps("linux")
    check(str(job.get("runs-on", "")).startswith("ubuntu"), "linux: not on a Linux runner")
    check(any(r.strip() == "make test" for r in runs), "linux: does not run make test")

    runs, job = steps("macos")
    check(str(job.get("runs-on", "")).startswith("macos"), "macos: not on a macOS runner")
    check(any("brew install libwebsockets" in r for r in runs), "macos: does not brew install libwebsockets")
    check(any(r.strip().startswith("brew install postgresql") for r in runs),
          "macos: does not brew install postgresql (the tests' private cluster)")
    check(any("brew install libpq" in r and "PKG_CONFIG_PATH" in r for r in runs),
          "macos: does not brew install libpq with its pkg-config folder (CLibPQ)")
    check(any(r.strip().startswith("swift build") for r in runs), "macos: no swift build")
    check(any(r.strip().startswith("swift test") for r in runs), "macos: no swift test")

    runs, job = steps("ios")
    check(str(job.get("runs-on", "")).startswith("macos"), "ios: not on a macOS runner")
    schemes = ((job.get("strategy") or {}).get("matrix") or {}).get("scheme") or []
    check(sorted(schemes) == ["Rewind", "RewindRecorder"], f"ios: schemes are {schemes}")
    build = " ".join(r for r in runs if "xcodebuild" in r)
    check("xcodebuild build" in build, "ios: no xcodebuild build")
    check("-skipPackagePluginValidation" in build, "ios: xcodebuild would stop to ask for the build-tool plugin's approval")
    check("-scheme ${{ matrix.scheme }}" in build, "ios: xcodebuild does not take the matrix's scheme")
    check("platform=iOS Simulator" in build, "ios: not built for the iOS Simulator")
    check("SWIFT_VERSION=6" in build, "ios: not in Swift 6 mode")

    for failure in failures:
        print(f"{path}: {failure}")
    print(f"{checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ".github/workflows/ci.yml"))
