"""What the browser checks share: reading the page and waiting on it."""
import json

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def wait(driver, predicate, timeout=20, message="condition"):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: predicate(d), message=message)


def open_session(ctx, session_id):
    d = ctx.driver
    d.get("about:blank")    # a fresh page for every check
    d.get(f"{ctx.server.url}#session={session_id}")
    wait(d, lambda d: js(d, "return window.__rewind && window.__rewind.page.current && window.__rewind.page.current.id") == session_id,
         message=f"session {session_id} open")
    wait(d, lambda d: js(d, "return document.getElementById('state-pane').dataset.seq") is not None, message="a state shown")


def dom_rows(driver):
    """The rows in the DOM that are drawn: seq, type, whether still loading."""
    return js(driver, """return [...document.querySelectorAll('#list .row')].filter(r => !r.hidden)
        .map(r => ({seq: Number(r.dataset.seq), type: r.querySelector('.type').textContent, loading: r.classList.contains('loading')}))""")


def shown_state(driver):
    """The state the page shows, read from its raw view."""
    driver.find_element(By.ID, "view-raw").click()
    text = driver.find_element(By.ID, "raw").text
    driver.find_element(By.ID, "view-tree").click()
    return json.loads(text)


def shown_seq(driver):
    value = js(driver, "return document.getElementById('state-pane').dataset.seq")
    return None if value is None else int(value)



def press(driver, *keys):
    for key in keys:
        ActionChains(driver).send_keys(key).perform()


def value_at(doc, pointer):
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc
