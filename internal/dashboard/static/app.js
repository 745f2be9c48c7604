// Sluice dashboard: progressive enhancement only. Every action works without this script as a
// plain form; it adds confirmation dialogs, copy buttons, playground defaults and focus.
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  // Move focus to what a form submission produced (a new key, a result, an error).
  const target = document.querySelector('[data-focus]');
  if (target) {
    if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.focus();
  }

  // Copy buttons: shown only when the clipboard can be used.
  document.querySelectorAll('button[data-copy]').forEach((button) => {
    if (!navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy);
      const text = 'value' in source ? source.value : source.textContent;
      const status = button.parentElement.parentElement.querySelector('.copied') ||
        document.querySelector('.copied');
      try {
        await navigator.clipboard.writeText(text);
        if (status) status.textContent = 'Copied.';
      } catch (e) {
        if (source.select) source.select();
        if (status) status.textContent = 'Copying failed: the text is selected, copy it yourself.';
      }
    });
  });

  // Confirmation dialogs: a key's Rotate and Revoke buttons open a dialog instead of the
  // confirmation page; closing it returns focus to the button that opened it.
  document.querySelectorAll('form[data-dialog]').forEach((form) => {
    const dialog = document.getElementById(form.dataset.dialog);
    if (!dialog || typeof dialog.showModal !== 'function') return;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const opener = form.querySelector('button');
      const post = dialog.querySelector('form');
      post.action = form.dataset.post;
      dialog.querySelectorAll('[data-key-label]').forEach((el) => { el.textContent = form.dataset.key; });
      dialog.returnFocus = opener;
      dialog.showModal();
      const cancel = dialog.querySelector('[data-close]');
      if (cancel) cancel.focus();
    });
  });
  document.querySelectorAll('dialog').forEach((dialog) => {
    dialog.querySelectorAll('[data-close]').forEach((b) => b.addEventListener('click', () => dialog.close()));
    dialog.addEventListener('close', () => {
      if (dialog.returnFocus) dialog.returnFocus.focus();
    });
  });

  // Playground: choosing a service fills its default parameters (unless edited) and offers a
  // stop condition only for classify services.
  document.querySelectorAll('select[data-params]').forEach((select) => {
    const params = document.getElementById(select.dataset.params);
    const stop = document.getElementById(select.dataset.stop);
    let edited = params.value.trim() !== '';
    params.addEventListener('input', () => { edited = params.value.trim() !== ''; });
    const update = (fill) => {
      const option = select.selectedOptions[0];
      const classify = option && option.dataset.kind === 'classify';
      stop.disabled = !classify;
      if (!classify) stop.value = '';
      if (fill && !edited) {
        params.value = option && option.dataset.defaults ? option.dataset.defaults : '';
      }
    };
    select.addEventListener('change', () => update(true));
    update(!edited && select.value !== '');
  });
});
