import React from 'react';

// A card with a title.
export function Card({ title, items }) {
  return (
    <div className="card">
      <p>Don't {title} forget</p>
      {items.map((i) => <i key={i}>{i}</i>)}
      <a href="/help">and/or</a>
    </div>
  );
}

export default function Other() { return null }

module.exports = { Card };
