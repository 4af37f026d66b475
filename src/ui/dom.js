// Builds elements. Text from the host or a result always goes in as a text node, never as HTML:
// there is no innerHTML anywhere in the page.

export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') element.textContent = String(value);
    else if (name === 'className') element.className = value;
    else if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

export function clear(element) {
  element.replaceChildren();
  return element;
}

export const byId = (id) => document.getElementById(id);

// A number on the page links to the JSON document it came from; the fragment is the JSON
// pointer of the field, so a person can find the raw value (the token is never in the link).
export function sourceLink(text, url, pointer) {
  const href = pointer ? `${url}#${pointer}` : url;
  return el('a', { href, className: 'num', title: `from ${href}`, text });
}
