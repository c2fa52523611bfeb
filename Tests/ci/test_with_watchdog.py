#!/usr/bin/env python3
"""scripts/with-watchdog: a command within its deadline keeps its exit status; one past it is
stopped at the deadline, its stacks summed up (when gdb is here), and the status is 124."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "with-watchdog")


class WatchdogTests(unittest.TestCase):
    def run_watchdog(self, *args, cwd):
        started = time.monotonic()
        done = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, cwd=cwd, timeout=300)
        return done, time.monotonic() - started

    def test_within_the_deadline_the_status_passes_through(self):
        with tempfile.TemporaryDirectory() as folder:
            done, _ = self.run_watchdog("60", "sh", "-c", "echo out; exit 3", cwd=folder)
            self.assertEqual(done.returncode, 3)
            self.assertIn("out", done.stdout)
            self.assertNotIn("hung", done.stdout)

    def test_past_the_deadline_it_is_stopped_and_said(self):
        with tempfile.TemporaryDirectory() as folder:
            # A child under a shell: both go.
            done, took = self.run_watchdog("1", "sh", "-c", "sleep 120 & wait", cwd=folder)
            self.assertEqual(done.returncode, 124, done.stdout + done.stderr)
            self.assertLess(took, 100)
            self.assertIn("still ran after 1 s: it hung", done.stdout)
            self.assertTrue(done.stdout.rstrip().endswith("hung; stopped after 1 s"), done.stdout)
            leftover = subprocess.run(["pgrep", "-f", "sleep 120"], capture_output=True, text=True).stdout.split()
            self.assertEqual(leftover, [], "the command's child outlived it")
            if shutil.which("gdb"):
                dumps = os.listdir(os.path.join(folder, ".build", "hangs"))
                self.assertGreaterEqual(len(dumps), 2, dumps)
                self.assertIn("whole dump in .build/hangs/", done.stdout)
                self.assertIn("Thread 1", done.stdout)

    def test_a_termination_is_passed_on_to_the_command(self):
        with tempfile.TemporaryDirectory() as folder:
            watchdog = subprocess.Popen([sys.executable, SCRIPT, "600", "sh", "-c", "sleep 131 & wait"], cwd=folder)
            deadline = time.monotonic() + 30
            while not subprocess.run(["pgrep", "-f", "^sleep 131$"], capture_output=True).stdout and time.monotonic() < deadline:
                time.sleep(0.05)
            watchdog.terminate()
            self.assertEqual(watchdog.wait(timeout=30), 128 + 15)
            deadline = time.monotonic() + 10
            while subprocess.run(["pgrep", "-f", "^sleep 131$"], capture_output=True).stdout and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertEqual(subprocess.run(["pgrep", "-f", "^sleep 131$"], capture_output=True, text=True).stdout, "",
                             "the command outlived its watchdog")


if __name__ == "__main__":
    unittest.main()
