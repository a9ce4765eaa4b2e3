// The web inbox's DOM helpers: an element by id, and a new element whose text is always text (never HTML).

export var $ = function (id) {
  return document.getElementById(id);
};

/** A new `tag` with `attrs` (`text` as its textContent, `className`, else attributes) and `children`. */
export function el(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === 'text') node.textContent = attrs[k];
    else if (k === 'className') node.className = attrs[k];
    else node.setAttribute(k, attrs[k]);
  });
  (children || []).forEach(function (c) {
    if (c) node.appendChild(c);
  });
  return node;
}
