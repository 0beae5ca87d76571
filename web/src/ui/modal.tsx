import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { Button, type ButtonVariant } from './button';
import './modal.css';

export type ModalProps = {
  open: boolean;
  title: ReactNode;
  children?: ReactNode;
  confirmLabel: ReactNode;
  /** null: no Cancel button (a dialog that only informs, closed by its one button or Esc). */
  cancelLabel?: ReactNode | null;
  /** 'danger' for Remove and Revoke keys. */
  confirmVariant?: ButtonVariant;
  busy?: boolean;
  busyText?: ReactNode;
  onConfirm: () => void;
  /** Called on Cancel, Esc and a click on the backdrop. */
  onCancel: () => void;
};

const focusableSelector =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A confirmation dialog on the native <dialog>: the page behind it is inert, Esc closes it, Tab
 * cycles inside it, and focus goes back to whatever opened it.
 */
export function Modal({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = 'Cancel',
  confirmVariant = 'primary',
  busy = false,
  busyText,
  onConfirm,
  onCancel,
}: ModalProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const returnFocusRef = useRef<HTMLElement | null>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnFocusRef.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
    } else if (!open && dialog.open) {
      dialog.close();
      returnFocusRef.current?.focus();
    }
  }, [open]);

  function onKeyDown(event: KeyboardEvent<HTMLDialogElement>) {
    if (event.key !== 'Tab') return;
    const focusable = Array.from(dialogRef.current?.querySelectorAll<HTMLElement>(focusableSelector) ?? []);
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  return (
    <dialog
      ref={dialogRef}
      className="qw-modal"
      aria-labelledby={titleId}
      onKeyDown={onKeyDown}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
      onClick={(event) => {
        if (event.target === dialogRef.current && !busy) onCancel();
      }}
    >
      {open && (
        <div className="qw-modal__body">
          <h2 id={titleId}>{title}</h2>
          {children}
          <div className="qw-modal__actions">
            {cancelLabel !== null && (
              <Button variant="secondary" onClick={onCancel} disabled={busy} autoFocus>
                {cancelLabel}
              </Button>
            )}
            <Button
              variant={confirmVariant}
              onClick={onConfirm}
              busy={busy}
              busyText={busyText}
              autoFocus={cancelLabel === null}
            >
              {confirmLabel}
            </Button>
          </div>
        </div>
      )}
    </dialog>
  );
}
