// Copy buttons: the only script of the web app. Every page works without it; the buttons are
// hidden until this script shows them.
for (const button of document.querySelectorAll('[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.dataset.copy);
    const status = document.getElementById(`${button.dataset.copy}-status`);
    const text = 'value' in target ? target.value : target.textContent;
    try {
      await navigator.clipboard.writeText(text);
      if (status) status.textContent = 'Copied.';
    } catch {
      target.focus();
      if (typeof target.select === 'function') target.select();
      if (status) status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
    }
  });
}
